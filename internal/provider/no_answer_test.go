package provider

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"regexp"
	"strings"
	"testing"
	"time"

	tfresource "github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/dynslice/terraform-provider-gke/internal/clients"
	"github.com/dynslice/terraform-provider-gke/internal/sandbox"
)

// noAnswerTimeout is the request_timeout of these tests: short, so that a
// request with no answer gives up quickly.
const noAnswerTimeout = "1s"

// withRequestTimeout adds request_timeout to a provider block.
func withRequestTimeout(providerBlock string) string {
	return strings.Replace(providerBlock, `provider "gke" {`, fmt.Sprintf("provider \"gke\" {\n  request_timeout    = %q", noAnswerTimeout), 1)
}

// silentKubeHost is a Kubernetes host that takes connections and never
// reads or writes: a TLS handshake with it never ends.
func silentKubeHost(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	conns := make(chan net.Conn, 1024)
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			conns <- c
		}
	}()
	t.Cleanup(func() {
		_ = l.Close()
		for {
			select {
			case c := <-conns:
				_ = c.Close()
			default:
				return
			}
		}
	})
	return "https://" + l.Addr().String()
}

// silentKubeProviderConfig is the target's provider block with a
// kubernetes block pointing at host.
func silentKubeProviderConfig(t *testing.T, host string) string {
	t.Helper()
	// Any CA does: the TLS handshake never starts.
	ca := selfSignedCAPEM(t)
	if accSandbox != nil {
		ca = accSandbox.CAPEM
	}
	block := strings.TrimSuffix(strings.TrimSpace(accProviderConfig()), "}")
	return withRequestTimeout(block + fmt.Sprintf(`  kubernetes {
    host                   = %q
    cluster_ca_certificate = %q
    token                  = "not-used"
  }
}
`, host, string(ca)))
}

// selfSignedCAPEM is a new CA certificate, PEM-encoded.
func selfSignedCAPEM(t *testing.T) []byte {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "acc-test-ca"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
}

const partitionsRead = `
data "gke_partitions" "all" {}
`

// A Google API endpoint that takes the request and never answers fails
// the plan, within the retry budget, with "no answer from <endpoint>" and
// what to check. Before, each attempt waited for ever: the plan hung
// until Terraform was killed.
func TestAccNoAnswer_googleAPIFailsThePlan(t *testing.T) {
	needSandboxControl(t, "a Google API that takes the connection and never answers")
	endpoint := strings.TrimSuffix(accSandbox.Info().GoogleURL, "/")
	for _, tc := range []struct {
		name, config string
		faults       sandbox.Faults
		want         []string
	}{
		// The data source reads a reservation block from Compute.
		{"compute", subBlocksRead, sandbox.Faults{Compute: sandbox.APIFaults{NoAnswer: true}},
			[]string{"no answer from " + endpoint + " in 1s (8 attempts over", "compute_endpoint, container_endpoint", "request_timeout"}},
		// The data source reads the cluster's endpoint from GKE.
		{"container", partitionsRead, sandbox.Faults{Container: sandbox.APIFaults{NoAnswer: true}},
			[]string{"Error: Cannot List Partitions", "from the GKE API to find its Kubernetes endpoint",
				"no answer from " + endpoint + " in 1s (8 attempts over", "compute_endpoint, container_endpoint"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// The production retry budget, with short backoffs between
			// the attempts (the provider's options): the bound of 8
			// attempts is what ends the request.
			cli := cliWorkspaceWith(t, shortBackoffs, withRequestTimeout(accSandbox.ProviderConfig()), tc.config)
			accFaults(t, tc.faults)
			before := totalRequests()
			out, err := cli.run("plan", "-input=false", "-no-color")
			if err == nil {
				t.Fatalf("plan succeeded against an API that never answers:\n%s", out)
			}
			if flat := strings.Join(strings.Fields(out), " "); !containsAll(flat, tc.want) {
				t.Errorf("plan output lacks %q:\n%s", tc.want, out)
			}
			// One request, 8 attempts, each taken and never answered.
			if sent := totalRequests() - before; sent != 8 {
				t.Errorf("%d requests reached the APIs, want 8 (one request, its 8 attempts)", sent)
			}
		})
	}
}

// A request_timeout that is not a positive duration fails at validation.
func TestAccNoAnswer_requestTimeoutValidated(t *testing.T) {
	needTarget(t)
	for _, bad := range []string{"soon", "0s", "-5s", " 30s"} {
		config := strings.Replace(accConfig(subBlocksRead), `provider "gke" {`, fmt.Sprintf("provider \"gke\" {\n  request_timeout = %q", bad), 1)
		tfresource.Test(t, tfresource.TestCase{
			ProtoV6ProviderFactories: testProviderFactories,
			Steps: []tfresource.TestStep{{
				Config:      config,
				PlanOnly:    true,
				ExpectError: regexp.MustCompile(`Invalid Duration[\s\S]*request_timeout is "` + regexp.QuoteMeta(bad) + `": `),
			}},
		})
	}
}

// A Kubernetes host that takes the connection and never answers fails a
// gke_partitions plan naming the host and what to check. Before, the plan
// waited 5 minutes and failed without a cause.
func TestAccNoAnswer_kubernetesFailsThePartitionsPlan(t *testing.T) {
	needTarget(t)
	host := silentKubeHost(t)
	tfresource.Test(t, tfresource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories,
		Steps: []tfresource.TestStep{{
			Config:   silentKubeProviderConfig(t, host) + partitionsRead,
			PlanOnly: true,
			// Whichever first list (nodes or Slices) meets the silence first
			// is the one named.
			ExpectError: regexp.MustCompile(`Cannot List Partitions[\s\S]*cannot read the cluster's (nodes|Slices)\s+at\s+` + regexp.QuoteMeta(host) +
				`[\s\S]*no\s+answer\s+from\s+` + regexp.QuoteMeta(host) + `\s+in\s+1s:\s+check\s+kubernetes.host`),
		}},
	})
}

// A Kubernetes endpoint that never answers shows at plan of a new slice
// as a warning naming the host and what to check (a warning, so that
// terraform destroy is never blocked), and fails its create with the same
// words: through the sandbox proxy (the endpoint GKE reports) and at a
// host of the kubernetes block. Before, the plan waited 10 minutes and
// passed with no warning.
func TestAccNoAnswer_kubernetesWarnsAtSlicePlan(t *testing.T) {
	needSandboxControl(t, "a Kubernetes API that never answers")
	silent := silentKubeHost(t)
	for _, tc := range []struct {
		name, provider, host string
		faults               sandbox.Faults
	}{
		{"sandbox proxy", withRequestTimeout(accSandbox.ProviderConfig()), accSandbox.Info().KubeHost, sandbox.Faults{KubeNoAnswer: true}},
		{"silent host", silentKubeProviderConfig(t, silent), silent, sandbox.Faults{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cli := cliWorkspace(t, tc.provider, accessSlice)
			accFaults(t, tc.faults)
			want := []string{"cannot read the cluster's", "at " + tc.host, "no answer from " + tc.host + " in 1s", "kubernetes.host"}

			started := time.Now()
			out := cli.must("plan", "-input=false", "-no-color")
			t.Logf("plan took %s", time.Since(started).Round(100*time.Millisecond))
			if flat := strings.Join(strings.Fields(out), " "); !strings.Contains(flat, "Warning: Cannot Read the Cluster") || !containsAll(flat, want) {
				t.Errorf("plan does not warn %q:\n%s", want, out)
			}
			out, err := cli.run("apply", "-auto-approve", "-input=false", "-no-color")
			if flat := strings.Join(strings.Fields(out), " "); err == nil || !strings.Contains(flat, "Error: Cannot Read the Cluster") || !containsAll(flat, want) {
				t.Errorf("apply: %v, want it to fail with %q:\n%s", err, want, out)
			}
		})
	}
}

// shortBackoffs is a provider whose Google API requests wait 20 to 200 ms
// between attempts (200 ms to 10 s in production), within the production
// retry budget.
var shortBackoffs = Options{Clients: clients.Options{RetryInitial: 20 * time.Millisecond, RetryMax: 200 * time.Millisecond}}
