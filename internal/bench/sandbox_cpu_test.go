package bench

import (
	"os/exec"
	"syscall"
	"testing"
	"time"
)

// A child that was running at the mark and burns CPU after it is counted;
// work of this process is counted; a process started after the mark is
// not.
func TestSandboxCPUCountsLongLivedChildren(t *testing.T) {
	child := exec.Command("sh", "-c", "read x; while :; do :; done")
	stdin, err := child.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = child.Process.Kill(); _ = child.Wait() })
	mark := markSandboxCPU()
	if _, ok := mark.children[child.Process.Pid]; !ok {
		t.Fatalf("the running child %d is not in the mark: %v", child.Process.Pid, mark.children)
	}
	late := exec.Command("sh", "-c", "i=0; while [ $i -lt 400000 ]; do i=$((i+1)); done")
	if err := late.Run(); err != nil {
		t.Fatal(err)
	}
	lateCPU := late.ProcessState.UserTime() + late.ProcessState.SystemTime()
	if lateCPU < 100*time.Millisecond {
		t.Fatalf("the later process used %s of CPU: too little to tell it apart", lateCPU)
	}
	_ = stdin.Close() // the child now spins
	var spun time.Duration
	for deadline := time.Now().Add(time.Minute); spun < 300*time.Millisecond; time.Sleep(20 * time.Millisecond) {
		s, ok := readProcSample(child.Process.Pid)
		if !ok || time.Now().After(deadline) {
			t.Fatalf("the child did not spin 300 ms of CPU within a minute (%s, read %v)", spun, ok)
		}
		spun = s.cpu - mark.children[child.Process.Pid]
	}
	if err := child.Process.Signal(syscall.SIGSTOP); err != nil { // it spins no more between the reads
		t.Fatal(err)
	}
	if s, ok := readProcSample(child.Process.Pid); ok {
		spun = s.cpu - mark.children[child.Process.Pid]
	}
	got := mark.since()
	if got < spun {
		t.Errorf("since the mark: %s, want at least the spinning child's %s", got, spun)
	}
	if got >= spun+lateCPU {
		t.Errorf("since the mark: %s, which counts the later process's %s beside the child's %s", got, lateCPU, spun)
	}
}
