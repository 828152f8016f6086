package provider

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/action"
	actionschema "github.com/hashicorp/terraform-plugin-framework/action/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	providerschema "github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	resourceschema "github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// durationCases are values of a duration and what the provider says of
// each ("" when it is accepted). Every duration attribute must agree on
// every one of them.
var durationCases = []struct{ value, want string }{
	{"30s", ""}, {"30m", ""}, {"1h30m", ""}, {"90s", ""}, {"500ms", ""},
	{"", "the value is empty"},
	{" 30s", `remove the spaces: write "30s"`},
	{"30s ", `remove the spaces: write "30s"`},
	{"\t2m\n", `remove the spaces: write "2m"`},
	{"30 m", `remove the spaces: write "30m"`},
	{" ", "remove the spaces; a timeout must be " + durationRule},
	{"ten minutes", "remove the spaces; a timeout must be " + durationRule},
	{" -5m", "remove the spaces; a timeout must be " + durationRule},
	{"thirty", "not a duration; a timeout must be " + durationRule},
	{"30", "not a duration; a timeout must be " + durationRule},
	{"0", "zero or a negative one would end every wait at once"},
	{"0s", "zero or a negative one would end every wait at once"},
	{"-1s", "zero or a negative one would end every wait at once"},
	{"-5m", "zero or a negative one would end every wait at once"},
}

// durationCheck is one way a duration reaches the provider: it returns the
// details of the errors of value, and the attribute they must name.
// With emptyIsUnset, "" is no value there (the validator refused it
// before).
type durationCheck struct {
	name         string
	emptyIsUnset bool
	check        func(t *testing.T, value string) (attribute, details string)
}

// Every duration the provider takes, the resources' timeouts, the actions'
// timeout and the provider's request_timeout (at validate and at
// configure), is checked by the same rule, with the same message.
func TestDurationsAgree(t *testing.T) {
	checks := append(append(timeoutsChecks(t), actionTimeoutChecks(t)...),
		validatorCheck("request_timeout", providerRequestTimeoutValidators(t), path.Root("request_timeout")),
		durationCheck{"configure request_timeout", true, configuredRequestTimeout},
		durationCheck{"action timeout at invoke", false, invokedActionTimeout},
	)
	for _, tc := range durationCases {
		for _, c := range checks {
			if tc.value == "" && c.emptyIsUnset {
				continue
			}
			attribute, got := c.check(t, tc.value)
			switch {
			case tc.want == "" && got != "":
				t.Errorf("%s %q: %s, want no error", c.name, tc.value, got)
			case tc.want == "":
			case !strings.Contains(got, tc.want):
				t.Errorf("%s %q: %q, want it to say %q", c.name, tc.value, got, tc.want)
			case !strings.HasPrefix(got, fmt.Sprintf("%s is %q: ", attribute, tc.value)):
				t.Errorf("%s %q: %q, want it to name %s and the value", c.name, tc.value, got, attribute)
			case strings.Contains(strings.ReplaceAll(got, strconv.Quote(tc.value), ""), `"-`):
				t.Errorf("%s %q: %q cites a negative duration", c.name, tc.value, got)
			}
		}
	}
}

// validatorCheck runs the validators of one attribute.
func validatorCheck(name string, validators []validator.String, p path.Path) durationCheck {
	return durationCheck{name, false, func(t *testing.T, value string) (string, string) {
		t.Helper()
		if len(validators) != 1 {
			t.Fatalf("%s: validators %v, want one durationValidator", name, validators)
		}
		if _, ok := validators[0].(durationValidator); !ok {
			t.Fatalf("%s: validator %T, want durationValidator", name, validators[0])
		}
		var resp validator.StringResponse
		validators[0].ValidateString(context.Background(), validator.StringRequest{Path: p, ConfigValue: types.StringValue(value)}, &resp)
		return p.String(), errorDetails(resp.Diagnostics)
	}}
}

// timeoutsChecks are the values of every resource's timeouts block.
func timeoutsChecks(t *testing.T) []durationCheck {
	t.Helper()
	ctx := context.Background()
	var checks []durationCheck
	for _, newResource := range (&GKEProvider{}).Resources(ctx) {
		r := newResource()
		var meta resource.MetadataResponse
		r.Metadata(ctx, resource.MetadataRequest{ProviderTypeName: TypeName}, &meta)
		var resp resource.SchemaResponse
		r.Schema(ctx, resource.SchemaRequest{}, &resp)
		block, ok := resp.Schema.Blocks["timeouts"].(resourceschema.SingleNestedBlock)
		if !ok {
			t.Fatalf("%s: no timeouts block", meta.TypeName)
		}
		for name, a := range block.Attributes {
			sa, ok := a.(resourceschema.StringAttribute)
			if !ok {
				t.Fatalf("%s: timeouts.%s is a %T", meta.TypeName, name, a)
			}
			checks = append(checks, validatorCheck(meta.TypeName+" timeouts."+name, sa.Validators, path.Root("timeouts").AtName(name)))
		}
	}
	if len(checks) == 0 {
		t.Fatal("no resource has a timeouts block")
	}
	return checks
}

// actionTimeoutChecks are the timeout attributes of every action.
func actionTimeoutChecks(t *testing.T) []durationCheck {
	t.Helper()
	ctx := context.Background()
	var checks []durationCheck
	for _, newAction := range (&GKEProvider{}).Actions(ctx) {
		a := newAction()
		var meta action.MetadataResponse
		a.Metadata(ctx, action.MetadataRequest{ProviderTypeName: TypeName}, &meta)
		var resp action.SchemaResponse
		a.Schema(ctx, action.SchemaRequest{}, &resp)
		sa, ok := resp.Schema.Attributes["timeout"].(actionschema.StringAttribute)
		if !ok {
			t.Fatalf("%s: timeout is a %T", meta.TypeName, resp.Schema.Attributes["timeout"])
		}
		checks = append(checks, validatorCheck(meta.TypeName+" timeout", sa.Validators, path.Root("timeout")))
	}
	return checks
}

// providerRequestTimeoutValidators are the validators of the provider's
// request_timeout.
func providerRequestTimeoutValidators(t *testing.T) []validator.String {
	t.Helper()
	var resp provider.SchemaResponse
	(&GKEProvider{}).Schema(context.Background(), provider.SchemaRequest{}, &resp)
	sa, ok := resp.Schema.Attributes["request_timeout"].(providerschema.StringAttribute)
	if !ok {
		t.Fatalf("request_timeout is a %T", resp.Schema.Attributes["request_timeout"])
	}
	return sa.Validators
}

// configuredRequestTimeout is request_timeout as Configure reads it
// (resolveConfig), where an empty one is unset: the default applies.
func configuredRequestTimeout(t *testing.T, value string) (string, string) {
	t.Helper()
	p := &GKEProvider{getenv: env(nil)}
	m := providerModelFrom(t, p, map[string]tftypes.Value{"request_timeout": tftypes.NewValue(tftypes.String, value)})
	_, diags := resolveConfig(m, p.getenv)
	return "request_timeout (or GKE_REQUEST_TIMEOUT)", errorDetails(diags)
}

// invokedActionTimeout is an action's timeout as the action reads it when
// invoked (actionContext).
func invokedActionTimeout(t *testing.T, value string) (string, string) {
	t.Helper()
	var diags diag.Diagnostics
	_, cancel := actionContext(context.Background(), types.StringValue(value), time.Minute, &diags)
	cancel()
	return "timeout", errorDetails(diags)
}

func errorDetails(diags diag.Diagnostics) string {
	var details []string
	for _, d := range diags.Errors() {
		details = append(details, d.Detail())
	}
	return strings.Join(details, "\n")
}
