package bench

import (
	"os"
	"os/exec"
	"path/filepath"
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

// A process is named by its program's base name, this one included.
func TestProgramOf(t *testing.T) {
	child := exec.Command("sleep", "30")
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = child.Process.Kill(); _ = child.Wait() })
	if got := programOf(child.Process.Pid); got != "sleep" {
		t.Errorf("programOf(sleep) = %q", got)
	}
	if got, want := programOf(os.Getpid()), filepath.Base(os.Args[0]); got != want {
		t.Errorf("programOf(self) = %q, want %q", got, want)
	}
	mark := markSandboxCPU()
	if _, ok := mark.sinceByPart()[InProcessPart]; !ok {
		t.Errorf("no %q part in %v", InProcessPart, mark.sinceByPart())
	}
}
