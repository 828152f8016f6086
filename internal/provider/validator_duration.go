package provider

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
)

// durationRule is what every duration of the provider must be: its
// request_timeout, an action's timeout and the values of a resource's
// timeouts block.
const durationRule = `a positive duration: a number and a unit, such as "90s", "30m", "1h" or "1h30m" (units "s", "m", "h")`

var _ validator.String = durationValidator{}

// durationValidator checks at validate time that a string is a duration
// that parseDuration accepts. It is the one check of every duration
// attribute, so that they accept and refuse the same values.
type durationValidator struct{}

func (durationValidator) Description(context.Context) string { return "must be " + durationRule }

func (v durationValidator) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}

func (durationValidator) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	value := req.ConfigValue.ValueString()
	if _, err := parseDuration(value); err != nil {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid Duration", durationDetail(req.Path.String(), value, err))
	}
}

// durationDetail is the message of a refused duration: the attribute (or
// where the value came from), the value and parseDuration's error.
func durationDetail(attribute, value string, err error) string {
	return fmt.Sprintf("%s is %q: %s", attribute, value, err)
}

// parseDuration parses a positive Go duration written without spaces,
// saying what is wrong with any other value and, when it can, what to
// write instead.
func parseDuration(s string) (time.Duration, error) {
	switch d, err := time.ParseDuration(s); {
	case s == "":
		return 0, errors.New("the value is empty; a timeout must be " + durationRule)
	case strings.TrimSpace(s) != s || strings.ContainsAny(s, " \t"):
		return 0, spacesError(s)
	case err != nil:
		return 0, errors.New("not a duration; a timeout must be " + durationRule)
	case d <= 0:
		return 0, errors.New("a timeout must be " + durationRule + "; zero or a negative one would end every wait at once")
	default:
		return d, nil
	}
}

// spacesError is the error of a duration with spaces: it gives the value
// without them when that is a valid duration.
func spacesError(s string) error {
	if without := strings.Join(strings.Fields(s), ""); without != "" {
		if d, err := time.ParseDuration(without); err == nil && d > 0 {
			return fmt.Errorf("remove the spaces: write %q", without)
		}
	}
	return errors.New("remove the spaces; a timeout must be " + durationRule)
}
