package provider

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// Every timeout is checked by this provider's validator alone, whose
// messages cite only valid examples (the timeouts package's own cites
// "-1.5h" as one).
func TestTimeoutsBlockChecksEachValue(t *testing.T) {
	ctx := context.Background()
	block, ok := timeoutsBlock(ctx, timeouts.Opts{Create: true, Update: true, Delete: true}).(schema.SingleNestedBlock)
	if !ok {
		t.Fatal("timeoutsBlock is not a SingleNestedBlock")
	}
	if len(block.Attributes) != 3 {
		t.Fatalf("attributes %v, want create, update and delete", block.Attributes)
	}
	for name, a := range block.Attributes {
		sa, ok := a.(schema.StringAttribute)
		if !ok || len(sa.Validators) != 1 {
			t.Fatalf("%s: %T with validators %v, want one timeoutValidator", name, a, sa.Validators)
		}
		if _, ok := sa.Validators[0].(timeoutValidator); !ok {
			t.Errorf("%s: validator %T, want timeoutValidator", name, sa.Validators[0])
		}
	}
	for _, tc := range []struct{ value, want string }{
		{"30m", ""}, {"1h30m", ""}, {"90s", ""},
		{"", "the value is empty"},
		{" 30m", "remove the spaces"},
		{"30 m", "remove the spaces"},
		{"thirty", "not a duration"},
		{"30", "not a duration"},
		{"0s", "zero or a negative one would end every wait at once"},
		{"-5m", "zero or a negative one would end every wait at once"},
	} {
		var resp validator.StringResponse
		timeoutValidator{}.ValidateString(ctx, validator.StringRequest{ConfigValue: types.StringValue(tc.value)}, &resp)
		got := ""
		for _, d := range resp.Diagnostics.Errors() {
			got += d.Detail()
		}
		switch {
		case tc.want == "" && got != "":
			t.Errorf("%q: %s, want no error", tc.value, got)
		case tc.want != "" && !strings.Contains(got, tc.want):
			t.Errorf("%q: %q, want it to say %q", tc.value, got, tc.want)
		case strings.Contains(strings.ReplaceAll(got, strconv.Quote(tc.value), ""), `"-`):
			t.Errorf("%q: %q cites a negative duration", tc.value, got)
		}
	}
}
