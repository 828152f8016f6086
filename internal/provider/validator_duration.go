package provider

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
)

var _ validator.String = positiveDurationValidator{}

// positiveDurationValidator checks at validate time that a string is a
// positive Go duration such as "30s" or "2m".
type positiveDurationValidator struct{}

func (positiveDurationValidator) Description(_ context.Context) string {
	return `must be a positive duration such as "30s" or "2m"`
}

func (v positiveDurationValidator) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}

func (positiveDurationValidator) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	if _, err := parsePositiveDuration(req.ConfigValue.ValueString()); err != nil {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid Duration", fmt.Sprintf("%s: %s", req.Path, err))
	}
}

// parsePositiveDuration parses a positive duration, saying what is wrong
// with any other value.
func parsePositiveDuration(s string) (time.Duration, error) {
	d, err := time.ParseDuration(strings.TrimSpace(s))
	switch {
	case err != nil:
		return 0, fmt.Errorf("%q is not a duration: write a number and a unit, such as \"30s\" or \"2m\"", s)
	case d <= 0:
		return 0, fmt.Errorf("%q is not positive: a wait of %s would fail every request at once", s, d)
	}
	return d, nil
}
