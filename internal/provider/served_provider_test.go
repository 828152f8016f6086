package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/hashicorp/go-plugin"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6/tf6server"
)

// providerAddress is the provider's address in the registry, the one
// the test configurations' required_providers name.
const providerAddress = "registry.terraform.io/dynslice/gke"

// servedProvider serves a provider built with opts in this test's
// process, for the terraform CLI to reattach to, and returns the
// TF_REATTACH_PROVIDERS entry of the CLI's environment. A test that
// drives the terraform CLI passes the small budgets it needs (a retry
// budget of seconds, a short watch failure limit) through the provider's
// constructor, as the in-process factories of resource.Test do, instead
// of waiting out the production ones. The server stops when the test
// ends.
func servedProvider(t *testing.T, opts Options) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	reattach := make(chan *plugin.ReattachConfig, 1)
	closed := make(chan struct{})
	served := make(chan error, 1)
	go func() {
		served <- tf6server.Serve(providerAddress, providerserver.NewProtocol6(NewWithOptions("test", opts)()),
			tf6server.WithDebug(ctx, reattach, closed), tf6server.WithoutLogStderrOverride())
	}()
	var cfg *plugin.ReattachConfig
	select {
	case cfg = <-reattach:
	case err := <-served:
		cancel()
		t.Fatalf("serving the provider for the terraform CLI: %v", err)
	case <-time.After(time.Minute):
		cancel()
		t.Fatal("the in-process provider server gave no reattach address within a minute")
	}
	t.Cleanup(func() {
		cancel()
		<-closed
	})
	// The form of TF_REATTACH_PROVIDERS that Terraform reads.
	type addr struct{ Network, String string }
	entry := struct {
		Protocol        string
		ProtocolVersion int
		Pid             int
		Test            bool
		Addr            addr
	}{string(cfg.Protocol), cfg.ProtocolVersion, cfg.Pid, cfg.Test, addr{cfg.Addr.Network(), cfg.Addr.String()}}
	b, err := json.Marshal(map[string]any{providerAddress: entry})
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("TF_REATTACH_PROVIDERS=%s", b)
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
