package topology

import (
	"strings"
	"testing"
)

// Partition IDs as a user lists them: no list panics the check, and it
// refuses exactly the lists with an empty or a repeated ID.
func FuzzCheckUniqueIDs(f *testing.F) {
	for _, seed := range []string{"p0,p1,p2", "p0,p0", "p0,", ",", "", " ,p1", "a\x00b,a\x00b", "é,É"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, list string) {
		ids := strings.Split(list, ",")
		err := CheckUniqueIDs(ids)
		seen, broken := map[string]bool{}, false
		for _, id := range ids {
			if strings.TrimSpace(id) == "" || seen[id] {
				broken = true
			}
			seen[id] = true
		}
		if (err != nil) != broken {
			t.Fatalf("CheckUniqueIDs(%q) = %v, want an error: %v", ids, err, broken)
		}
	})
}

// A tpu7x topology and a count of partitions, as a slice's topology and
// partition_ids give them: nothing panics, a topology that parses has a
// positive partition count, and exactly that count passes.
func FuzzParseTPU7xPartitionCount(f *testing.F) {
	for _, seed := range []struct {
		topo string
		n    int
	}{{"4x4x4", 1}, {"4x8x8", 4}, {"2x2x1", 1}, {"16x24x24", 144}, {"8x8x256", 3}, {"", 0}, {"4x4x4", -1}, {"2x4x4", 2}} {
		f.Add(seed.topo, seed.n)
	}
	f.Fuzz(func(t *testing.T, s string, n int) {
		topo, err := ParseTPU7x(s)
		if err != nil {
			if err.Error() == "" {
				t.Fatalf("ParseTPU7x(%q) fails with no words", s)
			}
			return
		}
		want := topo.Partitions()
		if want <= 0 {
			t.Fatalf("ParseTPU7x(%q) = %v with %d partitions", s, topo, want)
		}
		if err := topo.CheckPartitionCount(n); (err == nil) != (n == want) {
			t.Fatalf("%v.CheckPartitionCount(%d) = %v, want it to pass only %d", topo, n, err, want)
		}
	})
}
