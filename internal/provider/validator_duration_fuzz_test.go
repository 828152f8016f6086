package provider

import (
	"context"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// A duration as a user writes it (a timeout, request_timeout): nothing
// panics, the validator refuses exactly what parseDuration refuses, and
// what it accepts is a positive Go duration, written without spaces.
func FuzzDurationValidator(f *testing.F) {
	for _, seed := range []string{"90s", "1h30m", "", " 5m", "5 m", "0s", "-1m", "1e9h", "9223372036854775807ns", "1.5h", "\t", "1µs"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var resp validator.StringResponse
		durationValidator{}.ValidateString(context.Background(), validator.StringRequest{Path: path.Root("timeout"), ConfigValue: types.StringValue(s)}, &resp)
		d, err := parseDuration(s)
		if resp.Diagnostics.HasError() != (err != nil) {
			t.Fatalf("%q: validator errors %v, parseDuration %v", s, resp.Diagnostics, err)
		}
		if err != nil {
			if err.Error() == "" {
				t.Fatalf("parseDuration(%q) fails with no words", s)
			}
			return
		}
		if want, perr := time.ParseDuration(s); perr != nil || d != want || d <= 0 {
			t.Fatalf("parseDuration(%q) = %s, but Go reads %s (%v)", s, d, want, perr)
		}
	})
}
