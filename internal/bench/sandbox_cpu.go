package bench

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// The sandbox's CPU time during a Terraform command. The sandbox the bench
// starts runs in this process (the emulated GKE and Compute APIs, the
// slice controller and the Kueue slice check) and in processes it started
// before the command (kube-apiserver, etcd, the scheduler, the controller
// manager, kwok, JobSet, Kueue): on the machine's two cores they and
// Terraform take turns, so a wall time that grows faster than Terraform's
// and the provider's CPU is told apart from the sandbox's work by it.

// cpuMark is the CPU time, at one moment, of this process and of each
// process below it then.
type cpuMark struct {
	self     time.Duration
	children map[int]time.Duration
}

// markSandboxCPU reads this process's CPU time and its descendants'.
func markSandboxCPU() cpuMark {
	m := cpuMark{self: selfCPU(), children: map[int]time.Duration{}}
	for _, pid := range descendantsOf(os.Getpid()) {
		if s, ok := readProcSample(pid); ok {
			m.children[pid] = s.cpu
		}
	}
	return m
}

// since is the CPU time this process and the descendants of m used
// after m. A process started after m (Terraform, its providers) is not
// counted; one that ended meanwhile counts nothing.
func (m cpuMark) since() time.Duration {
	var d time.Duration
	for _, part := range m.sinceByPart() {
		d += part
	}
	return d
}

// InProcessPart names the sandbox's part that runs in the bench's own
// process (the emulated GKE and Compute APIs, the slice controller, the
// Kueue slice check, the DWS emulation) in a split by part.
const InProcessPart = "emulated APIs (in process)"

// sinceByPart is since split by part: each process's CPU time under the
// name of its program (kube-apiserver, etcd, kwok...; two processes of
// one program add up), and this process's under InProcessPart.
func (m cpuMark) sinceByPart() map[string]time.Duration {
	out := map[string]time.Duration{InProcessPart: selfCPU() - m.self}
	for pid, before := range m.children {
		if s, ok := readProcSample(pid); ok && s.cpu > before {
			out[programOf(pid)] += s.cpu - before
		}
	}
	return out
}

// programOf is the base name of the program pid runs (its argv[0]; the
// kernel's 15-character comm cuts kube-controller-manager short), or
// "pid N" when it cannot be read.
func programOf(pid int) string {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "cmdline"))
	if err != nil || len(b) == 0 {
		return "pid " + strconv.Itoa(pid)
	}
	argv0, _, _ := strings.Cut(string(b), "\x00")
	return filepath.Base(argv0)
}

// selfCPU is this process's user and system time (all its threads, none
// of its children).
func selfCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// descendantsOf lists the processes below pid, at any depth.
func descendantsOf(pid int) []int {
	var out []int
	for next := childrenOf(pid); len(next) > 0; {
		out = append(out, next...)
		var deeper []int
		for _, c := range next {
			deeper = append(deeper, childrenOf(c)...)
		}
		next = deeper
	}
	return out
}

// appendParts adds one run's CPU time per part to each part's runs.
func appendParts(runs map[string][]float64, parts map[string]time.Duration) map[string][]float64 {
	if len(parts) == 0 {
		return runs
	}
	if runs == nil {
		runs = map[string][]float64{}
	}
	for name, d := range parts {
		runs[name] = append(runs[name], ms(d))
	}
	return runs
}
