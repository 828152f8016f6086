package provider

import (
	"testing"
	"unicode/utf8"
)

// GCP labels as a user writes them (resource_labels): no key or value
// panics the validator, and what it accepts fits GCP's bounds.
func FuzzGCPLabelsValidator(f *testing.F) {
	for _, seed := range [][4]string{{"team", "ml", "env", ""}, {"", "x", "a", "b"}, {"Team", "ML", "ключ", "значение"}, {"a-b_c", "0", "a", "\xff"}} {
		f.Add(seed[0], seed[1], seed[2], seed[3])
	}
	f.Fuzz(func(t *testing.T, k1, v1, k2, v2 string) {
		labels := map[string]string{k1: v1, k2: v2}
		if errs := validateGCPLabels(labels); len(errs) == 0 {
			for k, v := range labels {
				if k == "" || !utf8.ValidString(k) || !utf8.ValidString(v) || len(k) > gcpLabelMaxBytes || len(v) > gcpLabelMaxBytes {
					t.Fatalf("labels %q accepted", labels)
				}
			}
		}
	})
}
