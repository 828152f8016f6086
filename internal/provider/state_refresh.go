package provider

import (
	"context"
	"reflect"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
)

// setRefreshed ends a Read: it sets the state to m, the model refreshed
// from prior (the model the state held), unless nothing changed. Then the
// state stays as Terraform sent it, which is the same value: most
// refreshes of a plan find nothing new, and each skips the framework's
// conversion of the whole model back into the state.
func setRefreshed[M any](ctx context.Context, state *tfsdk.State, prior, m M, diags *diag.Diagnostics) {
	if reflect.DeepEqual(prior, m) {
		return
	}
	diags.Append(state.Set(ctx, m)...)
}
