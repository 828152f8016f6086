package bench

import (
	"os"
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
	d := selfCPU() - m.self
	for pid, before := range m.children {
		if s, ok := readProcSample(pid); ok && s.cpu > before {
			d += s.cpu - before
		}
	}
	return d
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
