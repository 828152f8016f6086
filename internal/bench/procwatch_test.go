package bench

import (
	"os/exec"
	"sync"
	"testing"
	"time"

	"github.com/dynslice/terraform-provider-gke/internal/testsupport"
)

func TestStatCPUAndVmHWM(t *testing.T) {
	t.Parallel()
	cpu, ok := statCPU("4242 (terraform-provi der) S 1 2 3 4 5 6 7 8 9 10 250 30 0 0 20 0")
	if !ok || cpu != 2800*time.Millisecond {
		t.Errorf("statCPU = %s, %v; want 2.8s", cpu, ok)
	}
	if _, ok := statCPU("4242 (x) S 1"); ok {
		t.Error("statCPU of a short line: ok")
	}
	hwm, ok := vmHWM("Name:\tx\nVmPeak:\t 9 kB\nVmHWM:\t   123456 kB\nVmRSS:\t 1 kB\n")
	if !ok || hwm != 123456 {
		t.Errorf("vmHWM = %d, %v; want 123456", hwm, ok)
	}
	if _, ok := vmHWM("Name:\tx\n"); ok {
		t.Error("vmHWM without the line: ok")
	}
}

// A shell that starts a child which burns CPU and holds memory: the watch
// sees the child (not the shell), its CPU and its resident set, and finish
// keeps what it saw. The child, dd with a 50 MB buffer copying zeros, runs
// until the watch has read CPU time and the buffer's resident set of it;
// then the shell, told so on its stdin, stops it. What is asserted is what
// the watch saw and kept, not how fast anything ran.
func TestWatchChildren(t *testing.T) {
	t.Parallel()
	cmd := exec.Command("sh", "-c", `dd if=/dev/zero of=/dev/null bs=50M 2>/dev/null & read stop; kill $!; wait $!; true`)
	stop, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waited := false
	t.Cleanup(func() {
		_ = stop.Close()
		if !waited {
			_ = cmd.Wait()
		}
	})
	type sighting struct {
		pid int
		s   procSample
	}
	burning := make(chan sighting, 1)
	var once sync.Once
	w := watchChildren(cmd.Process.Pid, watchOptions{sampled: func(pid int, s procSample) {
		if s.cpu > 0 && s.hwmKiB >= 40000 {
			once.Do(func() { burning <- sighting{pid, s} })
		}
	}})
	seen := testsupport.Await(t, burning, "the watch to read CPU time and a 40 MB resident set of the shell's child")
	_ = stop.Close() // the shell kills dd, waits for it and ends
	waited = true
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	u := w.finish()
	if seen.pid == cmd.Process.Pid {
		t.Errorf("the watch sampled the shell (%d), not its child", seen.pid)
	}
	if u.processes != 1 {
		t.Fatalf("saw %d child processes, want 1 (dd)", u.processes)
	}
	if u.cpu < seen.s.cpu {
		t.Errorf("child CPU %s, less than the %s the watch read", u.cpu, seen.s.cpu)
	}
	if u.peakRSSKiB < seen.s.hwmKiB {
		t.Errorf("child peak RSS %d KiB, less than the %d KiB the watch read", u.peakRSSKiB, seen.s.hwmKiB)
	}
}
