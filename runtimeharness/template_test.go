package runtimeharness

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseTemplate(t *testing.T) {
	cases := []struct {
		name, template string
		script         string // what sh runs
		err            string // or the refusal
	}{
		{"bare", `run.sh {out}`, `run.sh "${HBGBENCH_OUT}"`, ""},
		{"double quotes", `run.sh "{out}"`, `run.sh "${HBGBENCH_OUT}"`, ""},
		{"inside a word", `cp x"{out}"/y {out}/z`, `cp x"${HBGBENCH_OUT}"/y "${HBGBENCH_OUT}"/z`, ""},
		{"followed by a name", `echo "{rounds}x" {rounds}x`, `echo "${HBGBENCH_ROUNDS}x" "${HBGBENCH_ROUNDS}"x`, ""},
		{"all three", `cd {out} && {worktree}/run.sh --rounds {rounds} .`,
			`cd "${HBGBENCH_OUT}" && "${HBGBENCH_WORKTREE}"/run.sh --rounds "${HBGBENCH_ROUNDS}" .`, ""},
		{"single quotes", `run.sh '{out}'`, "", `command template "run.sh '{out}'": {out} stands inside single quotes`},
		{"single quotes in a word", `echo 'dir='{out}'/x'`, `echo 'dir='"${HBGBENCH_OUT}"'/x'`, ""},
		{"a quote inside double quotes", `echo "it's {out}"`, `echo "it's ${HBGBENCH_OUT}"`, ""},
		{"an escaped quote", `echo \'{out}\'`, `echo \'"${HBGBENCH_OUT}"\'`, ""},
		{"an escaped double quote", `echo "a\"{out}"`, `echo "a\"${HBGBENCH_OUT}"`, ""},
		{"an escaped placeholder", `echo \{out}`, `echo \{out}`, ""},
		{"backquotes", "ls `echo {out}`", "", "{out} stands inside backquotes, where it cannot be filled in safely; use $(...) instead of backquotes"},
		{"backquotes in double quotes", "echo \"`cat {out}/x`\"", "", "{out} stands inside backquotes"},
		{"command substitution", `ls $(dirname {out})`, `ls $(dirname "${HBGBENCH_OUT}")`, ""},
		{"command substitution in double quotes", `echo "$(cat "{out}/x") {out}"`, `echo "$(cat "${HBGBENCH_OUT}/x") ${HBGBENCH_OUT}"`, ""},
		{"single quotes inside $( in double quotes", `echo "$(echo '{out}')"`, "", "{out} stands inside single quotes"},
		{"parentheses in $(", `echo $( (cd {out}) ) {out}`, `echo $( (cd "${HBGBENCH_OUT}") ) "${HBGBENCH_OUT}"`, ""},
		{"arithmetic", `echo $(({rounds} * 2)) "$(( ({rounds}) ))"`, `echo $((${HBGBENCH_ROUNDS} * 2)) "$(( (${HBGBENCH_ROUNDS}) ))"`, ""},
		{"a comment", "run.sh {out} # don't '{out}'\necho {out}", "run.sh \"${HBGBENCH_OUT}\" # don't '{out}'\necho \"${HBGBENCH_OUT}\"", ""},
		{"not a comment", `echo a#'{out}'`, "", "{out} stands inside single quotes"},
		{"parameter expansion", `echo ${X:-{out}} "${X:-{out}}"`, `echo ${X:-"${HBGBENCH_OUT}"} "${X:-${HBGBENCH_OUT}}"`, ""},
		{"a shell variable", `echo ${out} $out {out}`, `echo ${out} $out "${HBGBENCH_OUT}"`, ""},
		{"other braces", `f() { echo {x}; }; f {out}`, `f() { echo {x}; }; f "${HBGBENCH_OUT}"`, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			pieces, err := parseTemplate(tc.template)
			if tc.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.err)
				assert.Equal(t, err, CheckTemplate(tc.template))
				var te *TemplateError
				require.ErrorAs(t, err, &te)
				assert.Contains(t, err.Error(), te.Placeholder)
				assert.Contains(t, err.Error(), "HBGBENCH_")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.script, script(pieces))
			var text strings.Builder
			for _, p := range pieces {
				text.WriteString(p.text)
			}
			assert.Equal(t, tc.template, text.String(), "the pieces are the template")
		})
	}
}

// hostile is a name with everything a shell would act on: a command
// substitution, a space, single and double quotes, backquotes.
const hostile = "inj$(touch${IFS}PWNED1) 'q\" `touch${IFS}PWNED2`"

// TestCommandRunnerHostilePaths runs templates with each placeholder bare,
// in double quotes and inside a word, on an output directory and a
// worktree named like hostile: the command receives the exact paths, and
// neither it nor the [stamp] command pasted into sh runs anything.
func TestCommandRunnerHostilePaths(t *testing.T) {
	root := t.TempDir()
	wt := filepath.Join(root, "wt "+hostile)
	require.NoError(t, os.MkdirAll(wt, 0o755))
	spec := BlockSpec{Rounds: 3, Out: filepath.Join(root, hostile), Log: filepath.Join(root, "block.log")}
	want := map[string]string{
		"bare":   spec.Out,
		"dq":     spec.Out,
		"word":   "x" + spec.Out + "/y",
		"env":    spec.Out + " " + wt + " 3",
		"wt":     wt,
		"rounds": "3,3",
		"pwd":    wt + "\n",
	}
	template := strings.Join([]string{
		`printf %s {out} > {out}/bare`,
		`printf %s "{out}" > "{out}/dq"`,
		`printf %s x"{out}"/y > {out}/word`,
		`printf '%s %s %s' "$HBGBENCH_OUT" "$HBGBENCH_WORKTREE" "$HBGBENCH_ROUNDS" > "$HBGBENCH_OUT/env"`,
		`printf %s {worktree} > "{out}"/wt`,
		`printf %s,%s {rounds} "{rounds}" > {out}/rounds`,
		`cd {worktree} && pwd > {out}/pwd`,
	}, "; ")
	r := &CommandRunner{Template: template, Worktree: wt}

	check := func(t *testing.T, how string) {
		for _, dir := range []string{root, wt, spec.Out, "."} {
			for _, f := range []string{"PWNED1", "PWNED2"} {
				assert.NoFileExists(t, filepath.Join(dir, f), "%s ran a command from a path", how)
			}
		}
		for name, text := range want {
			got, err := os.ReadFile(filepath.Join(spec.Out, name))
			if assert.NoError(t, err, "%s: %s", how, name) {
				assert.Equal(t, text, string(got), "%s: %s", how, name)
			}
		}
	}

	res, err := r.Run(context.Background(), spec)
	require.NoError(t, err)
	check(t, "the block")
	assert.Equal(t, res.Stamp, r.Command(spec), "the stamp is the command")
	assert.NotContains(t, res.Stamp, "${HBGBENCH", "the stamp shows the values")
	assert.Contains(t, res.Stamp, `"`+doubleQuoteEscaper.Replace(spec.Out)+`/dq"`)

	// The [stamp] command, pasted into a shell, runs what the block ran.
	require.NoError(t, os.RemoveAll(spec.Out))
	require.NoError(t, os.MkdirAll(spec.Out, 0o755))
	sh := exec.Command("/bin/sh", "-c", r.Command(spec))
	sh.Dir = wt
	// The template's env line reads the variables: set them as the block had
	// them.
	sh.Env = os.Environ()
	sh.Env = append(sh.Env, "HBGBENCH_OUT="+spec.Out, "HBGBENCH_WORKTREE="+wt, "HBGBENCH_ROUNDS=3")
	out, err := sh.CombinedOutput()
	require.NoError(t, err, "%s", out)
	check(t, "the pasted stamp")
}

func TestCommandRunnerRefusesSingleQuotedPlaceholder(t *testing.T) {
	spec := blockIn(t, 1)
	r := &CommandRunner{Template: `touch '{out}/x'`}
	_, err := r.Run(context.Background(), spec)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `command template "touch '{out}/x'": {out} stands inside single quotes`)
	assert.NoFileExists(t, spec.Log, "nothing ran")
}
