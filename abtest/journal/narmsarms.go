package journal

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// MaxArms bounds the arms of a campaign: each round runs a block of every
// arm, and a report has a family of tables per arm.
const MaxArms = 26

var armNameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.+-]{0,39}$`)

// CheckArmName refuses an arm name that cannot name a block log or a
// benchfmt key: letters, digits, _ . + - (not first), at most 40.
func CheckArmName(name string) error {
	if !armNameRE.MatchString(name) {
		return fmt.Errorf("arm name %q: want 1 to 40 letters, digits, '_', '.', '+' or '-', starting with a letter or digit", name)
	}
	return nil
}

// CheckArms refuses a list of named arms that cannot be a campaign: fewer
// than two or more than MaxArms arms, a bad or repeated name.
func CheckArms(arms []Arm) error {
	switch {
	case len(arms) < 2:
		return fmt.Errorf("%d arm: a campaign compares at least two arms (give --arm twice or more, or --sweep with two values or more)", len(arms))
	case len(arms) > MaxArms:
		return fmt.Errorf("%d arms: at most %d", len(arms), MaxArms)
	}
	seen := map[string]bool{}
	for _, a := range arms {
		if err := CheckArmName(a.Name); err != nil {
			return err
		}
		if seen[a.Name] {
			return fmt.Errorf("arm name %q given twice: every arm needs its own name", a.Name)
		}
		seen[a.Name] = true
	}
	return nil
}

// ArmList returns the campaign's arms, base first: AllArms, or the two
// of Arms.
func (h *Header) ArmList() []Arm {
	if len(h.AllArms) > 0 {
		return h.AllArms
	}
	return h.Arms[:]
}

// ArmNames returns the names its blocks give the arms, base first: the
// arms' names in a campaign of more than two, else base and head.
func (h *Header) ArmNames() []string {
	if len(h.AllArms) == 0 {
		return []string{ArmNames[Base], ArmNames[Head]}
	}
	out := make([]string, len(h.AllArms))
	for i, a := range h.AllArms {
		out[i] = a.Name
	}
	return out
}

// setArms makes h a campaign of the arms all (more than two): AllArms,
// Arms the first two, and the schedule of as many arms.
func (h *Header) SetArms(all []Arm) error {
	if err := CheckArms(all); err != nil {
		return err
	}
	sched, err := NewScheduleN(h.Schedule.Order, h.Schedule.Seed, h.Schedule.Rounds, h.Schedule.Warmup, len(all))
	if err != nil {
		return err
	}
	h.AllArms = append([]Arm(nil), all...)
	h.Arms = [2]Arm{all[0], all[1]}
	h.Schedule = sched
	return nil
}

// checkArms refuses a journal header whose arm list cannot be read: a
// list of one or two arms, a bad or repeated name, a schedule of another
// number of arms.
func (h *Header) checkArms() error {
	if len(h.AllArms) == 0 {
		if h.Schedule.Arms != 0 {
			return fmt.Errorf("schedule of %d arms, but no arm list", h.Schedule.Arms)
		}
		return nil
	}
	if len(h.AllArms) < 3 {
		return fmt.Errorf("all_arms: %d arms: a list is written only for three or more", len(h.AllArms))
	}
	if err := CheckArms(h.AllArms); err != nil {
		return fmt.Errorf("all_arms: %w", err)
	}
	if h.Schedule.Arms != len(h.AllArms) {
		return fmt.Errorf("schedule of %d arms for %d arms", h.Schedule.Arms, len(h.AllArms))
	}
	return nil
}

// ParseNamedArm splits --arm NAME=SPEC, checking NAME; SPEC is read as
// --base and --head read theirs (ArmKindOf).
func ParseNamedArm(s string) (name, spec string, err error) {
	name, spec, ok := strings.Cut(s, "=")
	if !ok || strings.TrimSpace(spec) == "" {
		return "", "", fmt.Errorf("--arm %q: want NAME=SPEC, SPEC a git ref, embedded:KEY=VALUE,... or cmd:COMMAND", s)
	}
	if err := CheckArmName(name); err != nil {
		return "", "", fmt.Errorf("--arm %q: %w", s, err)
	}
	return name, spec, nil
}

// CommandPrefix marks a command arm in --arm's SPEC: cmd:TEMPLATE.
const CommandPrefix = "cmd:"

// A Sweep is --sweep SETTING=V1,V2,...: one arm per value, the first the
// base. Setting is what is set (delay_us, or recorders=prewarm for the
// values of recorders=prewarm=N); each arm sets Setting=value.
type Sweep struct {
	Setting string
	Values  []string
	// Names are the arms' names: the setting's last word and the value
	// ("delay_us-300", "prewarm-4"), a value given again suffixed -2, -3
	// (an A/A control arm).
	Names []string
}

// ParseSweep reads --sweep SETTING=V1,V2,...: the values follow the last
// '=', so recorders=prewarm=0,4,8 sets recorders=prewarm=0, =4 and =8.
func ParseSweep(s string) (Sweep, error) {
	i := strings.LastIndexByte(s, '=')
	if i <= 0 {
		return Sweep{}, fmt.Errorf("--sweep %q: want KEY=V1,V2,... (such as delay_us=0,300,600 or recorders=prewarm=0,4,8)", s)
	}
	sw := Sweep{Setting: s[:i], Values: strings.Split(s[i+1:], ",")}
	if len(sw.Values) < 2 {
		return Sweep{}, fmt.Errorf("--sweep %q: want two values or more, comma-separated: the first is the base", s)
	}
	if len(sw.Values) > MaxArms {
		return Sweep{}, fmt.Errorf("--sweep %q: %d values: at most %d arms", s, len(sw.Values), MaxArms)
	}
	word := sw.Setting[strings.LastIndexByte(sw.Setting, '=')+1:]
	count := map[string]int{}
	for _, v := range sw.Values {
		if strings.TrimSpace(v) == "" {
			return Sweep{}, fmt.Errorf("--sweep %q: an empty value", s)
		}
		name := sanitizeName(word + "-" + v)
		count[name]++
		if count[name] > 1 {
			name += "-" + strconv.Itoa(count[name])
		}
		if err := CheckArmName(name); err != nil {
			return Sweep{}, fmt.Errorf("--sweep %q: %w", s, err)
		}
		sw.Names = append(sw.Names, name)
	}
	if err := CheckArms(sweepArms(sw)); err != nil {
		return Sweep{}, fmt.Errorf("--sweep %q: %w", s, err)
	}
	return sw, nil
}

// sweepArms are placeholder arms carrying a sweep's names, for CheckArms.
func sweepArms(sw Sweep) []Arm {
	out := make([]Arm, len(sw.Names))
	for i, n := range sw.Names {
		out[i].Name = n
	}
	return out
}

// sanitizeName keeps the characters an arm name may have, '_' for others,
// and its first 40.
func sanitizeName(s string) string {
	b := []byte(s)
	for i, c := range b {
		ok := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '.' || c == '+' || c == '-'
		if !ok {
			b[i] = '_'
		}
	}
	return string(b[:min(len(b), 40)])
}
