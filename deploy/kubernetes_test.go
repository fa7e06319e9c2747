package deploy

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// The batch/v1 Job fields the manifest uses, as the Kubernetes API names
// them. k8s.io/api would check every field, but brings k8s.io/apimachinery
// and a dozen modules into go.mod for one test; a strict decode into this
// subset (unknown fields refused) catches the misspelt or misplaced field
// a hand-written manifest gets wrong, and no cluster runs here to apply
// it (docs/ab-operations.md "Shards: one campaign over many cards and hosts").
type job struct {
	APIVersion string `yaml:"apiVersion"`
	Kind       string `yaml:"kind"`
	Metadata   struct {
		Name   string            `yaml:"name"`
		Labels map[string]string `yaml:"labels"`
	} `yaml:"metadata"`
	Spec struct {
		CompletionMode string `yaml:"completionMode"`
		Completions    *int   `yaml:"completions"`
		Parallelism    *int   `yaml:"parallelism"`
		BackoffLimit   *int   `yaml:"backoffLimit"`
		Template       struct {
			Metadata struct {
				Labels map[string]string `yaml:"labels"`
			} `yaml:"metadata"`
			Spec struct {
				RestartPolicy string      `yaml:"restartPolicy"`
				Containers    []container `yaml:"containers"`
				Volumes       []struct {
					Name                  string `yaml:"name"`
					PersistentVolumeClaim struct {
						ClaimName string `yaml:"claimName"`
					} `yaml:"persistentVolumeClaim"`
				} `yaml:"volumes"`
			} `yaml:"spec"`
		} `yaml:"template"`
	} `yaml:"spec"`
}

type container struct {
	Name       string   `yaml:"name"`
	Image      string   `yaml:"image"`
	WorkingDir string   `yaml:"workingDir"`
	Command    []string `yaml:"command"`
	Args       []string `yaml:"args"`
	Env        []struct {
		Name      string `yaml:"name"`
		Value     string `yaml:"value"`
		ValueFrom *struct {
			FieldRef struct {
				FieldPath string `yaml:"fieldPath"`
			} `yaml:"fieldRef"`
		} `yaml:"valueFrom"`
	} `yaml:"env"`
	Resources struct {
		Limits map[string]string `yaml:"limits"`
	} `yaml:"resources"`
	VolumeMounts []struct {
		Name      string `yaml:"name"`
		MountPath string `yaml:"mountPath"`
	} `yaml:"volumeMounts"`
}

func decodeJobs(t *testing.T, data []byte) []job {
	t.Helper()
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var jobs []job
	for {
		var j job
		err := dec.Decode(&j)
		if errors.Is(err, io.EOF) {
			return jobs
		}
		if err != nil {
			t.Fatalf("decoding the manifest as batch/v1 Jobs: %v", err)
		}
		jobs = append(jobs, j)
	}
}

func TestKubernetesManifest(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("kubernetes", "hbgbench-shards.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	jobs := decodeJobs(t, data)
	if len(jobs) != 2 {
		t.Fatalf("%d documents, want the shards' Job and the merge Job", len(jobs))
	}
	shards, merge := jobs[0], jobs[1]
	for _, j := range jobs {
		if j.APIVersion != "batch/v1" || j.Kind != "Job" {
			t.Errorf("%s: %s %s, want batch/v1 Job", j.Metadata.Name, j.APIVersion, j.Kind)
		}
		if p := j.Spec.Template.Spec.RestartPolicy; p != "Never" && p != "OnFailure" {
			t.Errorf("%s: restartPolicy %q: a Job's pods want Never or OnFailure", j.Metadata.Name, p)
		}
		if len(j.Spec.Template.Spec.Containers) != 1 {
			t.Fatalf("%s: %d containers", j.Metadata.Name, len(j.Spec.Template.Spec.Containers))
		}
	}
	if shards.Spec.CompletionMode != "Indexed" || shards.Spec.Completions == nil || shards.Spec.Parallelism == nil {
		t.Fatalf("the shards' Job is not an Indexed Job with completions and parallelism: %+v", shards.Spec)
	}
	c := shards.Spec.Template.Spec.Containers[0]
	script := strings.Join(c.Args, " ")
	for _, want := range []string{"--shard \"$JOB_COMPLETION_INDEX/$SHARDS\"", "--campaign \"$CAMPAIGN\"", "--lock "} {
		if !strings.Contains(script, want) {
			t.Errorf("the shard's command lacks %s: %s", want, script)
		}
	}
	env := map[string]string{}
	for _, e := range c.Env {
		env[e.Name] = e.Value
	}
	if env["SHARDS"] != "" && shards.Spec.Completions != nil && env["SHARDS"] != strconv.Itoa(*shards.Spec.Completions) {
		t.Errorf("SHARDS=%s but completions %d", env["SHARDS"], *shards.Spec.Completions)
	}
	mc := merge.Spec.Template.Spec.Containers[0]
	menv := map[string]string{}
	for _, e := range mc.Env {
		menv[e.Name] = e.Value
	}
	if menv["CAMPAIGN"] != env["CAMPAIGN"] || env["CAMPAIGN"] == "" {
		t.Errorf("the merge reads campaign %q, the shards run %q", menv["CAMPAIGN"], env["CAMPAIGN"])
	}
	if !strings.Contains(strings.Join(mc.Args, " "), "hbgbench report \".hbgbench/$CAMPAIGN\"") {
		t.Errorf("the merge job does not report the campaign's directory: %v", mc.Args)
	}
	// A misspelt field is refused: the decode is strict.
	bad := strings.Replace(string(data), "completionMode:", "completionmode:", 1)
	dec := yaml.NewDecoder(strings.NewReader(bad))
	dec.KnownFields(true)
	var j job
	if err := dec.Decode(&j); err == nil {
		t.Error("a misspelt field decoded")
	}
}
