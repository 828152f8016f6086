package bench

import (
	"bytes"
	"strings"
	"testing"
)

var retained [][]byte

// holdMemory allocates about 64 MiB and keeps it.
func holdMemory() {
	for range 64 {
		retained = append(retained, bytes.Repeat([]byte{1}, 1<<20))
	}
}

func TestHeapGrowth(t *testing.T) {
	var before, after bytes.Buffer
	b := heapInUse(&before)
	holdMemory()
	a := heapInUse(&after)
	if a-b < 60 {
		t.Errorf("heap in use grew %.1f MiB, want about 64", a-b)
	}
	sites, err := heapGrowth(before.Bytes(), after.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if len(sites) == 0 || !strings.HasSuffix(sites[0].Function, "bench.holdMemory") || sites[0].MiB < 32 {
		t.Errorf("largest growth %+v, want holdMemory (through bytes.Repeat) with most of 64 MiB (the profile samples)", sites)
	}
	retained = nil
}
