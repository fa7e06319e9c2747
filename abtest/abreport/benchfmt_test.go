package abreport

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestRedactor(t *testing.T) {
	r := newRedactor("box7")
	for in, want := range map[string]string{
		"/home/a/x.log":                       "<path>/x.log",
		"cat /home/a/x.log {out}":             "cat <path>/x.log {out}",
		"--journal=/tmp/j/c.jsonl":            "--journal=<path>/c.jsonl",
		"relative/x.log stays":                "relative/x.log stays",
		"host box7 ran host=other.example":    "host <host> ran host=<host>",
		"box70 is another word":               "box70 is another word",
		"'/opt/simpler/run.sh' and \"/a/b\"":  "'<path>/run.sh' and \"<path>/b\"",
		"root /":                              "root <path>",
		"/a/b:12: ignoring a torn last line":  "<path>/b:12: ignoring a torn last line",
		"embedded:mirror=retained,delay_us=0": "embedded:mirror=retained,delay_us=0",
	} {
		assert.Equal(t, want, r.str(in), in)
	}
}

func TestBenchName(t *testing.T) {
	assert.Equal(t, "BenchmarkControlPlane", BenchName("ControlPlane"))
	assert.Equal(t, "BenchmarkPhase_host_orch", BenchName("phase.host_orch"))
	assert.Equal(t, "BenchmarkControlPlane@rank1", BenchName("ControlPlane@rank1"))
}
