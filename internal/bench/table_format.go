package bench

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// floorString is a plan's floor and how many times the floor it took, or
// "-" for a command without one.
func floorString(c Measurement) string {
	if floorRatio(c) == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f s (%d), %.2f×", c.FloorMedianMs/1000, c.FloorResources, floorRatio(c))
}

// schemaFloorString is a plan's schema floor and how many times it the
// plan took, or "-" for a command without one.
func schemaFloorString(c Measurement) string {
	if schemaFloorRatio(c) == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f s (%d), %.2f×", c.SchemaFloorMedianMs/1000, c.SchemaFloorResources, schemaFloorRatio(c))
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "NO"
}

func nsString(ns float64) string {
	switch {
	case ns >= 1e6:
		return fmt.Sprintf("%.3f ms", ns/1e6)
	case ns >= 1e3:
		return fmt.Sprintf("%.2f µs", ns/1e3)
	}
	return fmt.Sprintf("%.0f ns", ns)
}

// summarize is the total requests of each run ("12" or "12-14").
func summarize(runs []map[string]int64) string {
	var lo, hi int64 = -1, 0
	for _, c := range runs {
		var t int64
		for _, v := range c {
			t += v
		}
		if lo < 0 || t < lo {
			lo = t
		}
		hi = max(hi, t)
	}
	if lo < 0 {
		return "0"
	}
	return rangeString(lo, hi)
}

// breakdown lists each key with its count over the runs.
func breakdown(runs []map[string]int64) []string {
	keys := map[string]bool{}
	for _, c := range runs {
		for k := range c {
			keys[k] = true
		}
	}
	var sorted []string
	for k := range keys {
		sorted = append(sorted, k)
	}
	sort.Strings(sorted)
	var out []string
	for _, k := range sorted {
		out = append(out, fmt.Sprintf("%s\t%s", k, rangeString(countRange(runs, k))))
	}
	return out
}

// requestList is counts as "key n, key n", sorted by key.
func requestList(counts map[string]int64) string {
	keys := make([]string, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %d", k, counts[k])
	}
	return strings.Join(parts, ", ")
}

func rangeString(lo, hi int64) string {
	if lo == hi {
		return strconv.FormatInt(lo, 10)
	}
	return fmt.Sprintf("%d-%d", lo, hi)
}
