package journal

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestArmSwitches: the known switches and any *SKIP* variable, wherever
// the arm carries them, named once.
func TestArmSwitches(t *testing.T) {
	tests := map[string]struct {
		arm  Arm
		want []string
	}{
		"none":    {Arm{Kind: KindCommand, Spec: "./run --rounds {rounds}"}, nil},
		"golden":  {Arm{Kind: KindCommand, Spec: "python run.py --skip-golden --rounds {rounds}"}, []string{"--skip-golden"}},
		"env":     {Arm{Kind: KindGit, Run: "./run", Env: []string{"SIMPLER_SKIP_TENSOR_COPY_BACK=1"}}, []string{"SIMPLER_SKIP_TENSOR_COPY_BACK"}},
		"any":     {Arm{Kind: KindCommand, Spec: "MY_SKIP_CHECK=1 ./run && X=2"}, []string{"MY_SKIP_CHECK"}},
		"twice":   {Arm{Kind: KindGit, Build: "make", Run: "SKIP_X=1 ./r --skip-golden", Env: []string{"SKIP_X=1"}}, []string{"--skip-golden", "SKIP_X"}},
		"no name": {Arm{Kind: KindCommand, Spec: "echo skipping=1"}, nil},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			assert.Equal(t, tc.want, tc.arm.Switches())
		})
	}
}
