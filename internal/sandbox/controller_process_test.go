package sandbox

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// startFailsNaming starts a sandbox whose options set() makes a controller
// exit at once, and checks that Start fails with an error naming the
// controller (what, as in "starting Kueue"), its process (exe, as in
// "kueue exited") and its log (exe.log), and that what had started (etcd,
// kube-apiserver) is stopped.
func startFailsNaming(t *testing.T, set func(*Options), what, exe string) {
	t.Helper()
	needSandbox(t)
	dir := filepath.Join(t.TempDir(), "sb")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	opts := Options{Dir: dir}
	set(&opts)
	sb, err := Start(ctx, opts)
	if err == nil {
		sb.Stop()
		t.Fatalf("Start succeeded with a %s that exits", what)
	}
	log := filepath.Join(dir, exe+".log")
	if !strings.Contains(err.Error(), "starting "+what) || !strings.Contains(err.Error(), exe+" exited") || !strings.Contains(err.Error(), log) {
		t.Errorf("Start: %v; want an error that names %s and its log %s", err, what, log)
	}
	cmdlines, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, f := range cmdlines {
		if b, err := os.ReadFile(f); err == nil && strings.Contains(string(b), dir) {
			t.Errorf("a process of the failed sandbox is still running: %s", strings.ReplaceAll(string(b), "\x00", " "))
		}
	}
}
