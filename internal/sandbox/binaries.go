package sandbox

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// binaries are the programs the sandbox runs. kube-scheduler and
// kube-controller-manager are empty when Options.NoWorkloads leaves them
// off.
type binaries struct {
	kubeAPIServer, etcd                    string
	kubeScheduler, kubeControllerMgr, kwok string
}

func findBinaries(opts Options) (binaries, error) {
	var b binaries
	var err error
	if b.kubeAPIServer, err = findBuiltBinary("kube-apiserver", opts.KubeAPIServer, "GKE_SANDBOX_KUBE_APISERVER"); err != nil {
		return b, err
	}
	b.etcd = firstNonEmpty(opts.Etcd, os.Getenv("GKE_SANDBOX_ETCD"))
	if b.etcd == "" {
		b.etcd, _ = exec.LookPath("etcd")
	}
	if b.etcd == "" || !fileExists(b.etcd) {
		return b, errors.New("no etcd binary: run `make sandbox-bin` (it installs the Debian package etcd-server), or set GKE_SANDBOX_ETCD")
	}
	if b.kwok, err = findBuiltBinary("kwok", opts.Kwok, "GKE_SANDBOX_KWOK"); err != nil {
		return b, err
	}
	if opts.NoWorkloads {
		return b, nil
	}
	if b.kubeScheduler, err = findBuiltBinary("kube-scheduler", opts.KubeScheduler, "GKE_SANDBOX_KUBE_SCHEDULER"); err != nil {
		return b, err
	}
	if b.kubeControllerMgr, err = findBuiltBinary("kube-controller-manager", opts.KubeControllerManager, "GKE_SANDBOX_KUBE_CONTROLLER_MANAGER"); err != nil {
		return b, err
	}
	return b, nil
}

// findBuiltBinary finds a program that `make sandbox-bin` builds into bin/:
// the option, else the environment variable, else beside the running
// program (bin/gke-sandbox and bin/<name>), else bin/<name> in this
// repository, else <name> on PATH.
func findBuiltBinary(name, option, envVar string) (string, error) {
	p := firstNonEmpty(option, os.Getenv(envVar))
	if p == "" {
		if exe, err := os.Executable(); err == nil {
			if c := filepath.Join(filepath.Dir(exe), name); fileExists(c) {
				p = c
			}
		}
	}
	if p == "" {
		if root, ok := repoRoot(); ok {
			if c := filepath.Join(root, "bin", name); fileExists(c) {
				p = c
			}
		}
	}
	if p == "" {
		p, _ = exec.LookPath(name)
	}
	if p == "" || !fileExists(p) {
		return "", fmt.Errorf("no %s binary: run `make sandbox-bin` (it builds bin/%s from tools/sandbox), or set %s", name, name, envVar)
	}
	return p, nil
}

// repoRoot finds this repository from the working directory (tests run in
// their package directory).
func repoRoot() (string, bool) {
	dir, err := os.Getwd()
	if err != nil {
		return "", false
	}
	for {
		if b, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil &&
			bytes.HasPrefix(b, []byte("module github.com/dynslice/terraform-provider-gke\n")) {
			return dir, true
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", false
		}
		dir = parent
	}
}

func firstNonEmpty(values ...string) string {
	for _, v := range values {
		if v != "" {
			return v
		}
	}
	return ""
}

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
}

// findJobSetBinary finds the JobSet controller: opts.JobSet, else
// $GKE_SANDBOX_JOBSET, else jobset beside the running program (bin/
// gke-sandbox beside bin/jobset), else bin/jobset in this repository
// (built by `make sandbox-bin`), else jobset on PATH.
func findJobSetBinary(opts Options) (string, error) {
	bin := firstNonEmpty(opts.JobSet, os.Getenv("GKE_SANDBOX_JOBSET"))
	if bin == "" {
		if exe, err := os.Executable(); err == nil {
			if p := filepath.Join(filepath.Dir(exe), "jobset"); fileExists(p) {
				bin = p
			}
		}
	}
	if bin == "" {
		if root, ok := repoRoot(); ok {
			if p := filepath.Join(root, "bin", "jobset"); fileExists(p) {
				bin = p
			}
		}
	}
	if bin == "" {
		bin, _ = exec.LookPath("jobset")
	}
	if bin == "" || !fileExists(bin) {
		return "", errors.New("no JobSet controller binary: " + jobSetBinaryHint)
	}
	return bin, nil
}
