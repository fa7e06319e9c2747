package runtimeharness

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDefaultConfigIsHarnessTable(t *testing.T) {
	c := DefaultConfig()
	require.NoError(t, c.Validate())
	assert.Equal(t, "embedded:workload=dsv4-pair,mirror=per_bind,recorders=prewarm=8,"+
		"graph_pod=current,delay_us=0,args_bytes=4194304,ranks=1,epoch=e1,device=model", c.Spec())
	assert.Equal(t, int64(82_460_928), int64(256+16384*5033), "MirrorBytes is header + window × slot")
	assert.Equal(t, int64(MirrorBytes), int64(256+16384*5033))
}

func TestParseArmSpec(t *testing.T) {
	for _, tc := range []struct {
		name string
		spec string
		want func(*Config)
	}{
		{name: "empty", spec: "embedded:", want: func(*Config) {}},
		{name: "mirror", spec: "embedded:mirror=retained", want: func(c *Config) { c.Mirror = MirrorRetained }},
		{name: "dash keys", spec: "embedded:graph-pod=current,delay-us=250,args-bytes=1MiB",
			want: func(c *Config) { c.DelayUS = 250; c.ArgsBytes = 1 << 20 }},
		{name: "underscore keys", spec: "embedded:delay_us=7,args_bytes=4096",
			want: func(c *Config) { c.DelayUS = 7; c.ArgsBytes = 4096 }},
		{name: "recorders", spec: "embedded:workload=dsv4-blocks7,recorders=prewarm=4",
			want: func(c *Config) { c.Workload = WorkloadDSV4Blocks7; c.Prewarm = 4 }},
		{name: "ondemand", spec: "embedded:recorders=ondemand", want: func(c *Config) { c.Prewarm = 0 }},
		{name: "per-bind value with dash", spec: "embedded:mirror=per-bind", want: func(*Config) {}},
		{name: "epoch and device", spec: "embedded:epoch=e2,device=model:call_ns=4000:dma_bps=1e10",
			want: func(c *Config) { c.Epoch = EpochE2; c.Device.CallNS = 4000; c.Device.DMABytesPerSec = 1e10 }},
		{name: "not implemented parses", spec: "embedded:graph_pod=eager_pinned,ranks=2",
			want: func(c *Config) { c.GraphPod = GraphPodEagerPinned; c.Ranks = 2 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseArmSpec(tc.spec)
			require.NoError(t, err)
			want := DefaultConfig()
			tc.want(&want)
			assert.Equal(t, want, got)
			// The canonical spec parses back to the same config.
			again, err := ParseArmSpec(got.Spec())
			require.NoError(t, err)
			assert.Equal(t, got, again)
		})
	}
}

func TestNonsenseIsRejected(t *testing.T) {
	for _, tc := range []struct {
		spec, want string
	}{
		{"workload=dsv4", "arm spec \"workload=dsv4\": want embedded:key=value[,key=value]"},
		{"embedded:workload=llama", "workload=llama: want one of dsv4-pair, qwen3-14b-decode, dsv4-blocks7"},
		{"embedded:mirror=sometimes", "mirror=sometimes: want one of per_bind, retained"},
		{"embedded:recorders=8", "recorders=8: want prewarm=N or ondemand"},
		{"embedded:recorders=prewarm=-1", "recorders=prewarm=-1: want prewarm=N with N from 0 to 64, or ondemand"},
		{"embedded:recorders=prewarm=x", "recorders=prewarm=x: want prewarm=N with N from 0 to 64, or ondemand"},
		{"embedded:delay_us=-5", "delay_us=-5: want 0 to 10000000"},
		{"embedded:delay_us=1.5", "delay_us=1.5: want an integer"},
		{"embedded:args_bytes=2GiB", "args_bytes=2GiB: want 0 to 1073741824 bytes"},
		{"embedded:args_bytes=lots", "args_bytes=lots: want a byte count such as 4194304 or 4MiB"},
		{"embedded:ranks=3", "ranks=3: want 1 to 2"},
		{"embedded:epoch=e9", "epoch=e9: want one of e1, e2, e3, pr1870"},
		{"embedded:device=tpu", "device=tpu: want one of model, ascend"},
		{"embedded:device=cuda", "device=cuda: want one of model, ascend"},
		{"embedded:device=ascend:call_ns=1", "device=ascend:call_ns=1: constants apply to the model device only"},
		{"embedded:device=model:call_ns=-1", "device=model:call_ns=-1: call_ns=-1: want an integer from 0 to 1000000000"},
		{"embedded:device=model:speed=9", "device=model:speed=9: unknown constant \"speed\" (want call_ns, pin_ns, dma_bps, bounce)"},
		{"embedded:colour=red", "colour=red: unknown key (want one of workload, mirror, recorders, graph_pod, delay_us, args_bytes, ranks, epoch, device)"},
		{"embedded:mirror", "\"mirror\": want key=value"},
		{"embedded:mirror=retained,mirror=per_bind", "mirror given twice"},
	} {
		t.Run(tc.spec, func(t *testing.T) {
			_, err := ParseArmSpec(tc.spec)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
			assert.False(t, errors.Is(err, ErrNotImplemented))
		})
	}
}

// TestEveryVariantValidates: every value docs/harness.md "Switches" lists
// runs, so none
// is refused as not implemented.
func TestEveryVariantValidates(t *testing.T) {
	for _, spec := range []string{
		"embedded:graph_pod=deferred_pageable",
		"embedded:graph_pod=eager_pinned",
		"embedded:ranks=2",
		"embedded:epoch=e3",
		"embedded:epoch=pr1870",
		"embedded:epoch=e3,graph_pod=eager_pinned,ranks=2,workload=dsv4-blocks7",
	} {
		t.Run(spec, func(t *testing.T) {
			c, err := ParseArmSpec(spec)
			require.NoError(t, err)
			assert.NoError(t, c.Validate())
		})
	}
}

// TestAscendNeedsItsLibrary: the ascend backend is refused before any work
// when ASCEND_HOME_PATH is unset or has no lib64/libascendcl.so, and the
// message names the variable.
func TestAscendNeedsItsLibrary(t *testing.T) {
	c, err := ParseArmSpec("embedded:device=ascend")
	require.NoError(t, err)
	t.Setenv(AscendHomeEnv, "")
	err = c.Validate()
	var ce *ConfigError
	require.ErrorAs(t, err, &ce)
	assert.Contains(t, err.Error(), "ASCEND_HOME_PATH is not set")

	dir := t.TempDir()
	t.Setenv(AscendHomeEnv, dir)
	err = c.Validate()
	require.ErrorAs(t, err, &ce)
	assert.Contains(t, err.Error(), "no "+dir+"/lib64/libascendcl.so (from ASCEND_HOME_PATH)")
}

func TestValidateRefusesHandMadeConfigs(t *testing.T) {
	for name, mutate := range map[string]func(*Config){
		"zero workload":    func(c *Config) { c.Workload = "" },
		"prewarm 100":      func(c *Config) { c.Prewarm = 100 },
		"negative delay":   func(c *Config) { c.DelayUS = -1 },
		"huge args":        func(c *Config) { c.ArgsBytes = 1 << 40 },
		"zero dma":         func(c *Config) { c.Device.DMABytesPerSec = 0 },
		"unknown device":   func(c *Config) { c.Device.Kind = "fpga" },
		"zero ranks":       func(c *Config) { c.Ranks = 0 },
		"tiny bounce":      func(c *Config) { c.Device.BounceBytes = 1 },
		"unknown mirror":   func(c *Config) { c.Mirror = "sometimes" },
		"unknown epoch":    func(c *Config) { c.Epoch = "e0" },
		"unknown graphpod": func(c *Config) { c.GraphPod = "lazy" },
	} {
		t.Run(name, func(t *testing.T) {
			c := DefaultConfig()
			mutate(&c)
			err := c.Validate()
			require.Error(t, err)
			var ce *ConfigError
			assert.ErrorAs(t, err, &ce)
			assert.False(t, errors.Is(err, ErrNotImplemented))
		})
	}
}

func TestParseTHP(t *testing.T) {
	assert.Equal(t, "madvise", parseTHP("always [madvise] never\n"))
	assert.Equal(t, "always", parseTHP("[always] madvise never\n"))
	assert.Equal(t, "unknown", parseTHP("garbage"))
}

func TestStampNamesHarnessVariantAndHost(t *testing.T) {
	c := DefaultConfig()
	c.Mirror = MirrorRetained
	s := Stamp(c, 7, HostFacts{NProc: 2, THP: "madvise", Glibc: "2.36"})
	assert.Equal(t, "hbgkit-harness "+c.Spec()+" rounds=7 nproc=2 thp=madvise glibc=2.36 "+
		"dev=model call_ns=5000 pin_ns=3000 dma_bps=20000000000 bounce=2097152", s)
}
