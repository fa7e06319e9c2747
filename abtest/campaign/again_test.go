package campaign

import (
	"errors"
	"strings"
	"testing"

	"github.com/hbgkit/hbgkit/runtimeharness"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestResumeSaysItsErrorRecurs: a campaign aborted by an arm's failing
// blocks, resumed unchanged, aborts again and says that the same error
// stopped it before (the journal holds every block's error), and what to
// change; the first abort says nothing of the kind.
func TestResumeSaysItsErrorRecurs(t *testing.T) {
	t.Parallel()
	o := testOptions(t.TempDir(), 10)
	o.Config.Warmup = 0
	boom := exitWith(3, "boom\n")
	lab := &fakeLab{fail: func(n int, arm string, spec runtimeharness.BlockSpec) outcome {
		if arm == "head" && !strings.Contains(spec.Log, "r001-") {
			return boom
		}
		return nil
	}}
	s, _, err := runFake(t, o, lab)
	var abort *AbortError
	require.True(t, errors.As(err, &abort), "%v", err)
	assert.NotContains(t, err.Error(), "the same error")
	s.Close()

	ro := o
	ro.Resume = true
	_, _, err = runFake(t, ro, lab)
	require.True(t, errors.As(err, &abort), "%v", err)
	assert.Contains(t, err.Error(), "last: head block failed after 2 tries: block exited with status 3; the same error stopped this campaign before it was resumed (its log ")
	assert.Contains(t, err.Error(), "--resume repeats it until what it names is changed")
}
