package bench

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/dynslice/terraform-provider-gke/internal/testsupport"
)

// startAnswering starts a child whose program writes a line on its stdout
// once it runs, and returns once the line is read: then the child has
// exec'd its program and /proc/<pid>/cmdline holds its argv. (exec.Cmd's
// Start returns once the exec has begun; read before the new program ran,
// the cmdline can still be empty.) The child is killed and waited for when
// the test ends.
func startAnswering(t *testing.T, cmd *exec.Cmd, prompt string) io.WriteCloser {
	t.Helper()
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = stdin.Close(); _ = cmd.Process.Kill(); _ = cmd.Wait() })
	if prompt != "" {
		if _, err := io.WriteString(stdin, prompt); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := bufio.NewReader(stdout).ReadString('\n'); err != nil {
		t.Fatalf("%s did not answer: %v", cmd, err)
	}
	return stdin
}

// processCPU is this process's user and system time as getrusage says,
// read by the test itself.
func processCPU(t *testing.T) time.Duration {
	t.Helper()
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// A child that was running at the mark and burns CPU after it is counted,
// under its program's name; work of this process is counted; a process
// started after the mark is not, though it is running and has used CPU
// when the split is read. Each step waits for the one before (the child
// said it runs, its CPU was counted, the later process used some): no
// figure of speed. Not parallel: the mark reads every process below this
// one, and would count the children of tests running beside it.
func TestSandboxCPUCountsLongLivedChildren(t *testing.T) {
	child := exec.Command("sh", "-c", "echo ready; read x; while :; do :; done")
	spin := startAnswering(t, child, "")
	mark := markSandboxCPU()
	selfBefore := processCPU(t)

	late := exec.Command("dd", "if=/dev/zero", "of=/dev/null", "bs=1M")
	if err := late.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = late.Process.Kill(); _ = late.Wait() })
	_ = spin.Close() // the child's read ends: it spins

	var counted time.Duration
	testsupport.Until(t, 5*time.Millisecond, "the spinning child's CPU to be counted since the mark", func() bool {
		counted = mark.sinceByPart()["sh"]
		return counted > 0
	})
	testsupport.Until(t, 5*time.Millisecond, "the later process (dd) to use CPU", func() bool {
		s, ok := readProcSample(late.Process.Pid)
		return ok && s.cpu > 0
	})
	// This process's own work, by its own reading of getrusage.
	var self time.Duration
	for self == 0 {
		self = processCPU(t) - selfBefore
	}
	if err := child.Process.Signal(syscall.SIGSTOP); err != nil { // it spins no more between the reads
		t.Fatal(err)
	}

	parts := mark.sinceByPart()
	if parts["sh"] < counted {
		t.Errorf("the child's part is %s after it was %s", parts["sh"], counted)
	}
	if parts[InProcessPart] < self {
		t.Errorf("%s: %s, less than the %s this process used since the mark", InProcessPart, parts[InProcessPart], self)
	}
	if d, ok := parts["dd"]; ok {
		t.Errorf("the process started after the mark is counted: dd %s (parts %v)", d, parts)
	}
	var sum time.Duration
	for _, d := range parts {
		sum += d
	}
	if got := mark.since(); got < sum {
		t.Errorf("since the mark: %s, less than the parts read before it (%v, %s)", got, parts, sum)
	}
}

// A process is named by its program's base name, this one included. The
// child (cat) is named once it has echoed a line: it runs then.
func TestProgramOf(t *testing.T) {
	t.Parallel()
	child := exec.Command("cat")
	startAnswering(t, child, "ran\n")
	if got := programOf(child.Process.Pid); got != "cat" {
		t.Errorf("programOf(cat) = %q", got)
	}
	if got, want := programOf(os.Getpid()), filepath.Base(os.Args[0]); got != want {
		t.Errorf("programOf(self) = %q, want %q", got, want)
	}
	mark := markSandboxCPU()
	if _, ok := mark.sinceByPart()[InProcessPart]; !ok {
		t.Errorf("no %q part in %v", InProcessPart, mark.sinceByPart())
	}
}
