package topology

import "testing"

func BenchmarkParseTPU7x(b *testing.B) {
	for _, s := range []string{"4x4x4", "16x24x24", "4x8x4"} {
		b.Run(s, func(b *testing.B) {
			for b.Loop() {
				_, _ = ParseTPU7x(s)
			}
		})
	}
}
