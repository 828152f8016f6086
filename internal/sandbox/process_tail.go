package sandbox

import (
	"bytes"
	"strings"
	"sync"
)

// tailLines and tailLineBytes bound what a process keeps of its own
// output: the last lines, each cut to a length, for the error that says it
// ended (a controller's fatal message is its last line or two).
const (
	tailLines     = 12
	tailLineBytes = 512
)

// outputTail is an io.Writer that keeps the last complete lines written to
// it (and the line under way), so that a child that exits can be named with
// what it said last, where CI keeps no log file.
type outputTail struct {
	mu      sync.Mutex
	lines   []string
	partial []byte
}

func (t *outputTail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			t.partial = appendCapped(t.partial, p)
			break
		}
		t.partial = appendCapped(t.partial, p[:i])
		t.push(string(t.partial))
		t.partial = t.partial[:0]
		p = p[i+1:]
	}
	return n, nil
}

// appendCapped appends p to b up to tailLineBytes in all.
func appendCapped(b, p []byte) []byte {
	if room := tailLineBytes - len(b); room < len(p) {
		p = p[:max(room, 0)]
	}
	return append(b, p...)
}

func (t *outputTail) push(line string) {
	if strings.TrimSpace(line) == "" {
		return
	}
	t.lines = append(t.lines, line)
	if len(t.lines) > tailLines {
		t.lines = t.lines[len(t.lines)-tailLines:]
	}
}

// String is the kept lines, each indented, the line under way last.
func (t *outputTail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	lines := t.lines
	if strings.TrimSpace(string(t.partial)) != "" {
		lines = append(lines[:len(lines):len(lines)], string(t.partial))
	}
	var b strings.Builder
	for _, l := range lines {
		b.WriteString("\n    ")
		b.WriteString(l)
	}
	return b.String()
}
