package runtimeharness

import (
	"testing"
)

// FuzzParseArmSpec feeds arbitrary arm specs to the parser: it never
// panics, and a spec it accepts round-trips through Spec.
func FuzzParseArmSpec(f *testing.F) {
	for _, s := range []string{
		"embedded:workload=dsv4-pair,mirror=retained",
		"embedded:recorders=prewarm=4,delay_us=250",
		"embedded:graph-pod=current,args_bytes=4194304",
		"embedded:device=model:call_ns=1:pin_ns=2:dma_bps=3:bounce=4",
		"embedded:",
		"embedded:mirror=",
		"workload=qwen3-14b-decode",
		"embedded:args_bytes=-1",
		"embedded:recorders=ondemand,,mirror=per_bind",
		"embedded:graph_pod=eager_pinned,epoch=e3,ranks=2",
		"embedded:epoch=pr1870,graph-pod=deferred-pageable",
		"embedded:device=ascend",
		"embedded:device=ascend:call_ns=1",
		"embedded:device=cuda",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, spec string) {
		cfg, err := ParseArmSpec(spec)
		if err != nil {
			return
		}
		again, err := ParseArmSpec(cfg.Spec())
		if err != nil {
			t.Fatalf("ParseArmSpec(%q) accepted, but its Spec %q is refused: %v", spec, cfg.Spec(), err)
		}
		if again != cfg {
			t.Fatalf("round trip of %q: %+v != %+v", spec, again, cfg)
		}
	})
}
