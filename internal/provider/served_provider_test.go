package provider

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"

	"github.com/dynslice/terraform-provider-gke/internal/tfrun"
)

// servedProvider serves a provider built with opts in this test's
// process (tfrun.Serve), for the terraform CLI to reattach to, and returns
// the TF_REATTACH_PROVIDERS entry of the CLI's environment. A test that
// drives the terraform CLI passes the small budgets it needs (a retry
// budget of seconds, a short watch failure limit) through the provider's
// constructor, as the in-process factories of resource.Test do, instead
// of waiting out the production ones. The server stops when the test
// ends.
func servedProvider(t *testing.T, opts Options) string {
	t.Helper()
	env, stop, err := tfrun.Serve(context.Background(), tfrun.Address, providerserver.NewProtocol6(NewWithOptions("test", opts)()))
	if err != nil {
		t.Fatalf("serving the provider for the terraform CLI: %v", err)
	}
	t.Cleanup(stop)
	return env
}

// cliWorkspaceWith is cliWorkspace with the provider served in this
// process, built with opts (servedProvider).
func cliWorkspaceWith(t *testing.T, opts Options, providerConfig, config string) *terraformCLI {
	t.Helper()
	dir := t.TempDir()
	cli := newTerraformCLI(t, dir)
	cli.env = append(cli.env, servedProvider(t, opts))
	cli.write(providerConfig + accTarget.translate(config))
	return initWorkspaceOf(t, cli)
}
