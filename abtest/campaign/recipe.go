package campaign

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/hbgkit/hbgkit/abtest/journal"
)

// RecipeFile is the name of a repository's campaign recipe.
const RecipeFile = "hbgbench.toml"

// A Recipe is hbgbench.toml: the settings of `hbgbench ab` a repository
// keeps so that `hbgbench ab --base main --head pr` needs no other flag.
// Flags given on the command line override it.
type Recipe struct {
	Build     string            `toml:"build"`
	Run       string            `toml:"run"`
	Env       map[string]string `toml:"env"`
	Rounds    *int              `toml:"rounds"`
	Block     *int              `toml:"block"`
	Cold      *int              `toml:"cold"`
	Warmup    *int              `toml:"warmup"`
	Metric    string            `toml:"metric"`
	Margin    any               `toml:"margin"` // "1%" or 0.01
	Order     string            `toml:"order"`
	BlockStat string            `toml:"block_stat"`
	Trim      *int              `toml:"trim"`
	Timeout   string            `toml:"timeout"` // a Go duration, "10m"
	Retries   *int              `toml:"retries"`
	MaxFail   any               `toml:"max_fail"`
	Artifact  string            `toml:"artifact"`
	Lock      string            `toml:"lock"`
	CPUs      string            `toml:"cpus"` // "0", "0-1", "0,2-3"
	// Load and LoadCmd are --load N and --load-cmd CMD: the background
	// load beside every block. The command line's load (--load,
	// --load-cmd or --sweep load=) replaces them both.
	Load    *int   `toml:"load"`
	LoadCmd string `toml:"load_cmd"`
	// Check is the correctness check of every arm (--check).
	Check string `toml:"check"`
	// Tuned says where block and block_stat came from when `hbgbench aa
	// --tune --write` wrote them; the report names it.
	Tuned string `toml:"tuned"`
}

// recipeKeys returns the keys a recipe knows, in the order of Recipe's
// fields: read off its toml tags, so that the list an error prints cannot
// fall behind the struct.
func recipeKeys() string {
	t := reflect.TypeOf(Recipe{})
	keys := make([]string, 0, t.NumField())
	for i := range t.NumField() {
		keys = append(keys, t.Field(i).Tag.Get("toml"))
	}
	return strings.Join(keys, ", ")
}

// A RecipeError names the file, line and key of a bad recipe.
type RecipeError struct {
	File string
	Line int
	Key  string
	Msg  string
}

func (e *RecipeError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s: %s", e.File, e.Line, e.Key, e.Msg)
	}
	return fmt.Sprintf("%s: %s: %s", e.File, e.Key, e.Msg)
}

// keyLine finds the line where key is set in the file, 0 when not found.
func keyLine(data []byte, key string) int {
	last := key
	if i := strings.LastIndexByte(key, '.'); i >= 0 {
		last = key[i+1:]
	}
	re := regexp.MustCompile(`^\s*"?` + regexp.QuoteMeta(last) + `"?\s*=`)
	s := bufio.NewScanner(strings.NewReader(string(data)))
	s.Buffer(nil, MaxRecipeBytes+1)
	for n := 1; s.Scan(); n++ {
		if re.MatchString(s.Text()) {
			return n
		}
	}
	return 0
}

var tomlLine = regexp.MustCompile(`line (\d+)`)

// MaxRecipeBytes is the largest recipe LoadRecipe reads: a recipe is a
// few lines; a larger file is refused before it is parsed.
const MaxRecipeBytes = 1 << 20

// readBounded reads a file of at most limit bytes; a larger one is a
// *RecipeError naming it and the limit.
func readBounded(path string, limit int) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, int64(limit)+1))
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	if len(data) > limit {
		return nil, &RecipeError{File: path, Key: "file", Msg: fmt.Sprintf("longer than %d MiB, the largest recipe hbgbench reads", limit>>20)}
	}
	return data, nil
}

// LoadRecipe reads a recipe. An unknown key, a wrong type or a syntax
// error is an error naming the file, line and key, before any work.
func LoadRecipe(path string) (*Recipe, error) {
	data, err := readBounded(path, MaxRecipeBytes)
	if err != nil {
		return nil, err
	}
	var r Recipe
	md, err := toml.Decode(string(data), &r)
	if err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			key := pe.LastKey
			if key == "" {
				key = "syntax"
			}
			return nil, &RecipeError{File: path, Line: pe.Position.Line, Key: key, Msg: pe.Message}
		}
		line := 0
		if m := tomlLine.FindStringSubmatch(err.Error()); m != nil {
			fmt.Sscan(m[1], &line)
		}
		return nil, &RecipeError{File: path, Line: line, Key: "value", Msg: strings.TrimPrefix(err.Error(), "toml: ")}
	}
	if und := md.Undecoded(); len(und) > 0 {
		k := und[0].String()
		return nil, &RecipeError{File: path, Line: keyLine(data, k), Key: k,
			Msg: "unknown key (known: " + recipeKeys() + ")"}
	}
	check := func(key string, v any) error {
		switch v.(type) {
		case nil, string, float64, int64:
			return nil
		}
		return &RecipeError{File: path, Line: keyLine(data, key), Key: key, Msg: fmt.Sprintf("want a share such as \"1%%\" or 0.01, not %T", v)}
	}
	if err := check("margin", r.Margin); err != nil {
		return nil, err
	}
	if err := check("max_fail", r.MaxFail); err != nil {
		return nil, err
	}
	if r.Load != nil && (*r.Load < 0 || *r.Load > journal.MaxLoad) {
		return nil, &RecipeError{File: path, Line: keyLine(data, "load"), Key: "load", Msg: fmt.Sprintf("%d: want 0 to %d busy processes", *r.Load, journal.MaxLoad)}
	}
	if r.Load != nil && *r.Load > 0 && r.LoadCmd != "" {
		return nil, &RecipeError{File: path, Line: keyLine(data, "load_cmd"), Key: "load_cmd", Msg: "beside load: give one load"}
	}
	if r.Timeout != "" {
		if _, err := time.ParseDuration(r.Timeout); err != nil {
			return nil, &RecipeError{File: path, Line: keyLine(data, "timeout"), Key: "timeout", Msg: fmt.Sprintf("%q is not a duration such as \"10m\"", r.Timeout)}
		}
	}
	return &r, nil
}

// Flags returns what the recipe sets, as (flag name, value) pairs in the
// order of Recipe's fields, "" for what it leaves unset; [env] apart.
func (r *Recipe) Flags() [][2]string {
	num := func(p *int) string {
		if p == nil {
			return ""
		}
		return fmt.Sprint(*p)
	}
	return [][2]string{
		{"build", r.Build}, {"run", r.Run}, {"rounds", num(r.Rounds)}, {"block", num(r.Block)},
		{"cold", num(r.Cold)}, {"warmup", num(r.Warmup)}, {"metric", r.Metric}, {"margin", share(r.Margin)},
		{"order", r.Order}, {"block-stat", r.BlockStat}, {"trim", num(r.Trim)}, {"timeout", r.Timeout},
		{"retries", num(r.Retries)}, {"max-fail", share(r.MaxFail)}, {"artifact", r.Artifact}, {"lock", r.Lock},
		{"cpus", r.CPUs}, {"check", r.Check}, {"load", num(r.Load)}, {"load-cmd", r.LoadCmd},
	}
}

// LoadGiven reports whether a command line gives the campaign's load:
// --load or --load-cmd (changed says which flags it gave), or --sweep
// load= (sweep). The recipe's load and load_cmd are then not applied.
func LoadGiven(changed func(flag string) bool, sweep string) bool {
	return changed("load") || changed("load-cmd") || strings.HasPrefix(sweep, journal.LoadSetting+"=")
}

// share renders a recipe share as the flag takes it.
func share(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case float64:
		return fmt.Sprint(x)
	case int64:
		return fmt.Sprint(x)
	}
	return ""
}

// FindRecipe returns the recipe of the repository of repo ("": the
// current directory's) and its path; none outside a repository or without
// a RecipeFile. A recipe configures the campaigns of its repository's
// commits: it applies only when an arm is a git ref (gitRef), its [env]
// reaching only those arms, never to embedded or command arms alone; then
// FindRecipe says on warn that it is not applied (a line without the
// program's name).
func FindRecipe(repo string, gitRef bool, warn io.Writer) (*Recipe, string, error) {
	if repo == "" {
		repo = "."
	}
	root, err := RepoRoot(repo)
	if err != nil {
		return nil, "", nil // not a repository: no recipe
	}
	path := filepath.Join(root, RecipeFile)
	if _, err := os.Stat(path); err != nil {
		return nil, "", nil
	}
	if !gitRef {
		fmt.Fprintf(warn, "%s not applied: it configures campaigns on this repository's git refs, and no arm is one\n", path)
		return nil, "", nil
	}
	r, err := LoadRecipe(path)
	if err == nil {
		err = r.confine(root, path)
	}
	return r, path, err
}

// confine keeps the recipe's paths inside its repository root: artifact
// (a glob a worktree's files are hashed by) and lock (resolved against the
// root, as the recipe's other paths are) must be relative and may not
// climb out of it with "..". A lock outside the repository is the command
// line's to name (--lock).
func (r *Recipe) confine(root, path string) error {
	for _, k := range []struct{ key, v string }{{"artifact", r.Artifact}, {"lock", r.Lock}} {
		if k.v == "" {
			continue
		}
		if err := InsidePath(k.v); err != nil {
			data, _ := os.ReadFile(path)
			return &RecipeError{File: path, Line: keyLine(data, k.key), Key: k.key, Msg: err.Error()}
		}
	}
	if r.Lock != "" {
		r.Lock = filepath.Join(root, r.Lock)
	}
	return nil
}

// InsidePath refuses a path or glob that is absolute or climbs out of the
// directory it is relative to.
func InsidePath(p string) error {
	c := filepath.Clean(p)
	if filepath.IsAbs(c) || c == ".." || strings.HasPrefix(c, "../") {
		return fmt.Errorf("%q reaches outside the repository: give a path inside it", p)
	}
	return nil
}

// EnvSwitches returns the recipe's [env] as KEY=VALUE switches sorted by
// key; path names the recipe in an error.
func (r *Recipe) EnvSwitches(path string) ([]string, error) {
	keys := slices.Sorted(maps.Keys(r.Env))
	var env []string
	for _, k := range keys {
		if k == "" || strings.Contains(k, "=") {
			return nil, &RecipeError{File: path, Key: "env", Msg: fmt.Sprintf("%q is not a variable name", k)}
		}
		env = append(env, k+"="+r.Env[k])
	}
	return env, nil
}
