package flagsuggest

import (
	"errors"
	"testing"

	"github.com/spf13/pflag"
	"github.com/stretchr/testify/assert"
)

func flags() *pflag.FlagSet {
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	fs.Int("rounds", 0, "")
	fs.Bool("until-decided", false, "")
	fs.String("format", "", "")
	fs.String("secret", "", "")
	_ = fs.MarkHidden("secret")
	return fs
}

func TestSuggest(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"unknown flag: --round", "unknown flag: --round (did you mean --rounds?)"},
		{"unknown flag: --formt", "unknown flag: --formt (did you mean --format?)"},
		{"unknown flag: --until", "unknown flag: --until (did you mean --until-decided?)"},
		{"unknown flag: --rounds2=3", "unknown flag: --rounds2=3 (did you mean --rounds?)"},
		{"unknown flag: --secrt", "unknown flag: --secrt"},                             // hidden flags are never named
		{"unknown flag: --zzzzzzzz", "unknown flag: --zzzzzzzz"},                       // nothing near
		{"invalid argument \"x\" for --rounds", "invalid argument \"x\" for --rounds"}, // not an unknown flag
	} {
		assert.Equal(t, tc.want, Suggest(flags(), errors.New(tc.in)).Error(), tc.in)
	}
	assert.NoError(t, Suggest(flags(), nil))
	long := make([]byte, 1<<20)
	for i := range long {
		long[i] = 'r'
	}
	assert.Equal(t, "unknown flag: --"+string(long), Suggest(flags(), errors.New("unknown flag: --"+string(long))).Error())
}
