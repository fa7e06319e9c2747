package journal

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestRulerSetsAsideTheArm(t *testing.T) {
	t.Parallel()
	base := "hbgkit-harness embedded:mirror=per_bind rounds=5 nproc=2 thp=madvise"
	head := "hbgkit-harness embedded:mirror=retained rounds=5 nproc=2 thp=madvise"
	rb := Ruler(base, []string{"embedded:mirror=per_bind"})
	rh := Ruler(head, []string{"embedded:mirror=retained"})
	assert.Equal(t, rb, rh)
	assert.Equal(t, "hbgkit-harness {arm} rounds=5 nproc=2 thp=madvise", rb)
	// What is not the arm still counts.
	other := Ruler("hbgkit-harness embedded:mirror=retained rounds=5 nproc=4 thp=madvise", []string{"embedded:mirror=retained"})
	assert.NotEqual(t, rb, other)
	assert.Len(t, RulerHash(rb), 16)
	assert.NotEqual(t, RulerHash(rb), RulerHash(other))
}

func TestRulerLongestNameFirst(t *testing.T) {
	t.Parallel()
	// A command that contains the template as a prefix: the longer string
	// goes first so no piece of it is left behind.
	got := Ruler("env A=1 run.sh 5 /tmp/out", []string{"run.sh", "run.sh 5 /tmp/out"})
	assert.Equal(t, "env A=1 {arm}", got)
}

func TestRulerDiff(t *testing.T) {
	t.Parallel()
	d := RulerDiff("x {arm} nproc=2 thp=madvise", "x {arm} nproc=4 thp=madvise")
	assert.Contains(t, d, "  - nproc=2\n")
	assert.Contains(t, d, "  + nproc=4\n")
	assert.NotContains(t, d, "- thp")
	err := &RulerError{Block: "round 3 head", Want: "a b", Got: "a c"}
	assert.Contains(t, err.Error(), "stamp mismatch: round 3 head")
	assert.Contains(t, err.Error(), "  + c")
}
