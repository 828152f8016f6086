package provider

import (
	"strings"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

func TestResolveConfig_RequestTimeout(t *testing.T) {
	str := func(s string) tftypes.Value { return tftypes.NewValue(tftypes.String, s) }
	for _, tc := range []struct {
		name    string
		attrs   map[string]tftypes.Value
		env     map[string]string
		want    time.Duration
		wantErr string
	}{
		{"default", nil, nil, 0, ""},
		{"attribute", map[string]tftypes.Value{"request_timeout": str("45s")}, nil, 45 * time.Second, ""},
		{"attribute beats environment", map[string]tftypes.Value{"request_timeout": str("2m")}, map[string]string{"GKE_REQUEST_TIMEOUT": "5s"}, 2 * time.Minute, ""},
		{"environment", nil, map[string]string{"GKE_REQUEST_TIMEOUT": "5s"}, 5 * time.Second, ""},
		{"malformed environment", nil, map[string]string{"GKE_REQUEST_TIMEOUT": "soon"}, 0, `request_timeout (or GKE_REQUEST_TIMEOUT) is "soon": not a duration`},
		{"zero", map[string]tftypes.Value{"request_timeout": str("0s")}, nil, 0, `is "0s": a timeout must be a positive duration`},
		{"attribute with spaces", map[string]tftypes.Value{"request_timeout": str(" 30s")}, nil, 0, `is " 30s": remove the spaces: write "30s"`},
		// Every variable's value is trimmed (orEnv), this one too.
		{"environment with spaces", nil, map[string]string{"GKE_REQUEST_TIMEOUT": " 30s "}, 30 * time.Second, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := &GKEProvider{getenv: env(tc.env)}
			cfg, diags := resolveConfig(providerModelFrom(t, p, tc.attrs), p.getenv)
			if tc.wantErr != "" {
				if !diags.HasError() || !strings.Contains(diags.Errors()[0].Detail(), tc.wantErr) {
					t.Errorf("diagnostics %v, want an error saying %q", diags, tc.wantErr)
				}
				return
			}
			if diags.HasError() || cfg.RequestTimeout != tc.want {
				t.Errorf("RequestTimeout = %s (%v), want %s", cfg.RequestTimeout, diags, tc.want)
			}
		})
	}
}
