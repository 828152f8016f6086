package bench

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// The providers' use of the machine during a Terraform command: the
// processes Terraform starts (the provider, and a floor's provider) are
// sampled from /proc while it runs, every procSampleEvery, for their peak
// resident set (VmHWM, which the kernel keeps, so a peak between samples
// is not lost) and their CPU time (user and system, in clock ticks of
// 10 ms; what a process uses after its last sample, at most
// procSampleEvery, is left out).
const procSampleEvery = 20 * time.Millisecond

// clockTick is the unit of /proc/<pid>/stat's times (USER_HZ, 100 on
// Linux).
const clockTick = 10 * time.Millisecond

// processUse is what the processes a command started used.
type processUse struct {
	peakRSSKiB int64
	cpu        time.Duration
	processes  int
}

// procSample is one child process's latest sample.
type procSample struct {
	hwmKiB int64
	cpu    time.Duration
}

// childWatch samples the children of one process until stopped.
type childWatch struct {
	pid  int
	opts watchOptions
	stop chan struct{}
	done chan struct{}
	mu   sync.Mutex
	seen map[int]procSample
}

// watchOptions are watchChildren's; the zero value is what a command's
// measure uses.
type watchOptions struct {
	// sampled, when set, is called with each sample the watch reads of a
	// child (its PID, and what /proc said then), from the watch's
	// goroutine, after the sample is kept. It must not block the watch for
	// long: a test learns from it when the watch has seen what it waits for.
	sampled func(pid int, s procSample)
}

// watchChildren starts sampling the children of pid.
func watchChildren(pid int, opts watchOptions) *childWatch {
	w := &childWatch{pid: pid, opts: opts, stop: make(chan struct{}), done: make(chan struct{}), seen: map[int]procSample{}}
	go w.run()
	return w
}

func (w *childWatch) run() {
	defer close(w.done)
	tick := time.NewTicker(procSampleEvery)
	defer tick.Stop()
	for {
		w.sample()
		select {
		case <-w.stop:
			return
		case <-tick.C:
		}
	}
}

// sample reads every current child of the process.
func (w *childWatch) sample() {
	for _, child := range childrenOf(w.pid) {
		s, ok := readProcSample(child)
		if !ok {
			continue
		}
		w.mu.Lock()
		prev := w.seen[child]
		w.seen[child] = procSample{hwmKiB: max(prev.hwmKiB, s.hwmKiB), cpu: max(prev.cpu, s.cpu)}
		w.mu.Unlock()
		if w.opts.sampled != nil {
			w.opts.sampled(child, s)
		}
	}
}

// finish stops sampling and returns the children's peak resident set (the
// largest of any one) and their CPU time (the sum).
func (w *childWatch) finish() processUse {
	close(w.stop)
	<-w.done
	w.mu.Lock()
	defer w.mu.Unlock()
	var u processUse
	for _, s := range w.seen {
		u.peakRSSKiB = max(u.peakRSSKiB, s.hwmKiB)
		u.cpu += s.cpu
		u.processes++
	}
	return u
}

// childrenOf lists the children of pid, from each of its threads'
// /proc/<pid>/task/<tid>/children.
func childrenOf(pid int) []int {
	files, _ := filepath.Glob(filepath.Join("/proc", strconv.Itoa(pid), "task", "*", "children"))
	var out []int
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		for _, field := range strings.Fields(string(b)) {
			if n, err := strconv.Atoi(field); err == nil {
				out = append(out, n)
			}
		}
	}
	return out
}

// readProcSample reads a process's peak resident set and CPU time.
func readProcSample(pid int) (procSample, bool) {
	dir := filepath.Join("/proc", strconv.Itoa(pid))
	status, err := os.ReadFile(filepath.Join(dir, "status"))
	if err != nil {
		return procSample{}, false
	}
	stat, err := os.ReadFile(filepath.Join(dir, "stat"))
	if err != nil {
		return procSample{}, false
	}
	hwm, ok1 := vmHWM(string(status))
	cpu, ok2 := statCPU(string(stat))
	return procSample{hwmKiB: hwm, cpu: cpu}, ok1 && ok2
}

// vmHWM is the VmHWM line of /proc/<pid>/status, in KiB.
func vmHWM(status string) (int64, bool) {
	for _, line := range strings.Split(status, "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			f := strings.Fields(rest)
			if len(f) == 0 {
				return 0, false
			}
			n, err := strconv.ParseInt(f[0], 10, 64)
			return n, err == nil
		}
	}
	return 0, false
}

// statCPU is utime + stime of /proc/<pid>/stat (fields 14 and 15, after
// the command name in parentheses, which may hold spaces).
func statCPU(stat string) (time.Duration, bool) {
	i := strings.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(stat[i+1:])
	// f[0] is field 3 (state): utime is field 14, f[11].
	if len(f) < 13 {
		return 0, false
	}
	u, err1 := strconv.ParseInt(f[11], 10, 64)
	s, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, false
	}
	return time.Duration(u+s) * clockTick, true
}
