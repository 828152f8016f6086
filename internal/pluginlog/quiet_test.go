package pluginlog

import (
	"errors"
	"os"
	"slices"
	"testing"
)

// fakeEnv is an environment in a map.
func fakeEnv(vars map[string]string) Env {
	return Env{
		Get: func(k string) string { return vars[k] },
		Set: func(k, v string) error { vars[k] = v; return nil },
	}
}

func TestQuiet(t *testing.T) {
	t.Parallel()
	all := []string{"TF_LOG_SDK", "TF_LOG_SDK_PROTO", "TF_LOG_SDK_FRAMEWORK", "TF_LOG_PROVIDER_GKE"}
	for _, tc := range []struct {
		name string
		env  map[string]string
		set  []string
	}{
		{name: "no logging", env: map[string]string{}, set: all},
		{name: "TF_LOG off", env: map[string]string{"TF_LOG": "off"}, set: all},
		{name: "TF_LOG OFF with blanks", env: map[string]string{"TF_LOG": " OFF ", "TF_LOG_PROVIDER": ""}, set: all},
		{name: "TF_LOG_CORE only shows core logs", env: map[string]string{"TF_LOG_CORE": "trace"}, set: all},
		{name: "TF_LOG_PATH alone logs nothing", env: map[string]string{"TF_LOG_PATH": "/tmp/tf.log"}, set: all},
		{name: "TF_LOG debug", env: map[string]string{"TF_LOG": "debug"}},
		{name: "TF_LOG JSON", env: map[string]string{"TF_LOG": "JSON"}},
		{name: "TF_LOG not a level still logs", env: map[string]string{"TF_LOG": "verbose"}},
		{name: "TF_LOG_PROVIDER", env: map[string]string{"TF_LOG_PROVIDER": "info"}},
		{name: "a level set by hand is kept", env: map[string]string{"TF_LOG_SDK_FRAMEWORK": "trace"},
			set: []string{"TF_LOG_SDK", "TF_LOG_SDK_PROTO", "TF_LOG_PROVIDER_GKE"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := map[string]string{}
			for k, v := range tc.env {
				before[k] = v
			}
			set, err := Quiet("gke", fakeEnv(tc.env))
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(set, tc.set) {
				t.Fatalf("set %v, want %v", set, tc.set)
			}
			for _, k := range set {
				if tc.env[k] != "OFF" {
					t.Errorf("%s = %q, want OFF", k, tc.env[k])
				}
			}
			for k, v := range before {
				if tc.env[k] != v {
					t.Errorf("%s changed from %q to %q", k, v, tc.env[k])
				}
			}
		})
	}
}

func TestQuiet_providerNameAsTheSDKsSpellIt(t *testing.T) {
	t.Parallel()
	env := map[string]string{}
	set, err := Quiet("bench-floor", fakeEnv(env))
	if err != nil {
		t.Fatal(err)
	}
	if set[len(set)-1] != "TF_LOG_PROVIDER_BENCH_FLOOR" {
		t.Fatalf("set %v, want TF_LOG_PROVIDER_BENCH_FLOOR last", set)
	}
}

func TestQuiet_setFails(t *testing.T) {
	t.Parallel()
	env := Env{Get: func(string) string { return "" }, Set: func(k, _ string) error {
		if k == "TF_LOG_SDK_PROTO" {
			return errors.New("read-only")
		}
		return nil
	}}
	set, err := Quiet("gke", env)
	if err == nil || !slices.Equal(set, []string{"TF_LOG_SDK"}) {
		t.Fatalf("set %v, err %v; want the one set before the failure and the error", set, err)
	}
}

func TestQuietProcess(t *testing.T) {
	for _, k := range []string{"TF_LOG", "TF_LOG_PROVIDER", "TF_LOG_SDK", "TF_LOG_SDK_PROTO", "TF_LOG_SDK_FRAMEWORK", "TF_LOG_PROVIDER_BENCH_FLOOR"} {
		t.Setenv(k, "") // restored after the test
		if err := os.Unsetenv(k); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("TF_LOG_SDK_PROTO", "trace")
	QuietProcess("bench-floor")
	for k, want := range map[string]string{"TF_LOG_SDK": "OFF", "TF_LOG_SDK_PROTO": "trace", "TF_LOG_SDK_FRAMEWORK": "OFF", "TF_LOG_PROVIDER_BENCH_FLOOR": "OFF"} {
		if got := os.Getenv(k); got != want {
			t.Errorf("%s = %q, want %q", k, got, want)
		}
	}
}
