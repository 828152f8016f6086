package sandbox

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
)

func findBinaries(opts Options) (kubeAPIServer, etcd string, err error) {
	kubeAPIServer = firstNonEmpty(opts.KubeAPIServer, os.Getenv("GKE_SANDBOX_KUBE_APISERVER"))
	if kubeAPIServer == "" {
		// Beside the running program (bin/gke-sandbox and bin/kube-apiserver).
		if exe, err := os.Executable(); err == nil {
			if p := filepath.Join(filepath.Dir(exe), "kube-apiserver"); fileExists(p) {
				kubeAPIServer = p
			}
		}
	}
	if kubeAPIServer == "" {
		if root, ok := repoRoot(); ok {
			if p := filepath.Join(root, "bin", "kube-apiserver"); fileExists(p) {
				kubeAPIServer = p
			}
		}
	}
	if kubeAPIServer == "" {
		kubeAPIServer, _ = exec.LookPath("kube-apiserver")
	}
	if kubeAPIServer == "" || !fileExists(kubeAPIServer) {
		return "", "", errors.New("no kube-apiserver binary: run `make sandbox-bin` (it builds bin/kube-apiserver from tools/kube-apiserver), " +
			"or set GKE_SANDBOX_KUBE_APISERVER")
	}
	etcd = firstNonEmpty(opts.Etcd, os.Getenv("GKE_SANDBOX_ETCD"))
	if etcd == "" {
		etcd, _ = exec.LookPath("etcd")
	}
	if etcd == "" || !fileExists(etcd) {
		return "", "", errors.New("no etcd binary: run `make sandbox-bin` (it installs the Debian package etcd-server), or set GKE_SANDBOX_ETCD")
	}
	return kubeAPIServer, etcd, nil
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
