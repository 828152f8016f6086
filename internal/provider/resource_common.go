package provider

import (
	"fmt"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/dynslice/terraform-provider-gke/internal/clients"
	"github.com/dynslice/terraform-provider-gke/internal/engine"
)

// providerData turns what Configure handed over into the client set, or a
// diagnostic that says the provider was not configured.
func providerData(data any) (*clients.Set, diag.Diagnostics) {
	var diags diag.Diagnostics
	if data == nil {
		return nil, diags // ValidateConfig and early plans run unconfigured
	}
	set, ok := data.(*clients.Set)
	if !ok {
		diags.AddError("Unexpected Provider Data", fmt.Sprintf("expected *clients.Set, got %T; this is a bug in the provider", data))
	}
	return set, diags
}

// engineOf returns the engine, or a diagnostic saying why there is none.
func engineOf(set *clients.Set) (*engine.Engine, diag.Diagnostics) {
	var diags diag.Diagnostics
	if set == nil {
		diags.AddError("Provider Not Configured", "the gke provider was not configured before this operation; this is a bug in the provider")
		return nil, diags
	}
	e, err := set.Engine()
	if err != nil {
		diags.AddError("Provider Configuration Not Known", err.Error())
	}
	return e, diags
}

// quoted lists values as `a`, `b` for documentation.
func quoted(values []string) string {
	q := make([]string, len(values))
	for i, v := range values {
		q[i] = "`" + v + "`"
	}
	return strings.Join(q, ", ")
}

var metav1PatchOptions = metav1.PatchOptions{}
