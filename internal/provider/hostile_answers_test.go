package provider

import (
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/dynslice/terraform-provider-gke/internal/sandbox"
)

// The provider pointed at APIs that answer badly (the sandbox's hostile
// faults): what the user reads names the API, the answer and what to
// check; reads are retried, changes are not.

// hostileFaults are the hostile answers, each for every Compute request.
var hostileFaults = []struct {
	name   string
	faults sandbox.APIFaults
	// words are what the user must read of the answer.
	words []string
}{
	{"cut JSON", sandbox.APIFaults{RateCutJSON: 1}, []string{"HTTP 200 OK", `content type "application/json; charset=UTF-8"`, "the JSON is cut short"}},
	{"proxy page", sandbox.APIFaults{RateProxyPage: 1}, []string{"HTTP 502 Bad Gateway", `content type "text/html"`, "the content type is not JSON", `the body begins "<html> <head><title>502 Bad Gateway`}},
	{"empty 200", sandbox.APIFaults{RateEmpty200: 1}, []string{"HTTP 200 OK", "content type none", "the body is empty"}},
	{"wrong shape", sandbox.APIFaults{RateWrongShape: 1}, []string{"HTTP 200 OK", `content type "application/json; charset=UTF-8"`,
		`the JSON object is of another shape: none of its keys ("data", "gateway", "upstreamStatus") is a field of a Compute reservation`}},
}

// A plan whose reads only ever get a malformed answer fails within the
// retry budget, naming the answer: the API, the method, the host, the
// status, the content type, the body's first bytes, what was expected and
// what to check. Every attempt the error counts reached the API.
func TestAccHostileAnswers_readNamesTheAnswer(t *testing.T) {
	needSandboxControl(t, "hostile answers of the Compute API")
	for _, h := range hostileFaults {
		t.Run(h.name, func(t *testing.T) {
			cli := cliWorkspaceWith(t, shortRetries, accSandbox.ProviderConfig(), subBlocksRead)
			accFaults(t, sandbox.Faults{Compute: h.faults})
			before := totalRequests()
			out, err := cli.run("plan", "-input=false", "-no-color")
			if err == nil {
				t.Fatalf("plan succeeded against a Compute API that answers only %s:\n%s", h.name, out)
			}
			flat := strings.Join(strings.Fields(out), " ")
			host := strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(accSandbox.Info().GoogleURL, "http://"), "https://"), "/")
			for _, want := range append([]string{"malformed answer from the Compute API at " + host + " to a GET",
				"expected a Compute reservation", "check compute_endpoint", "proxy"}, h.words...) {
				if !strings.Contains(flat, want) {
					t.Errorf("plan output lacks %q:\n%s", want, out)
				}
			}
			if strings.Contains(flat, accSandbox.Info().Token) {
				t.Errorf("plan output quotes the access token:\n%s", out)
			}
			m := regexp.MustCompile(`\((\d+) attempts over [0-9.]+m?s\)`).FindStringSubmatch(flat)
			if m == nil {
				t.Fatalf("plan output does not count the attempts (a read is retried):\n%s", out)
			}
			attempts, _ := strconv.Atoi(m[1])
			if sent := totalRequests() - before; sent != int64(attempts) || attempts < 3 {
				t.Errorf("%d requests reached the APIs and the error counts %d attempts: want the same count, and the read retried", sent, attempts)
			}
		})
	}
}

// Reads that now and then get a malformed answer succeed: each is retried
// like a 5xx, and the sandbox gives one request two hostile answers in a
// row at most.
func TestAccHostileAnswers_flakyReadsAreRetried(t *testing.T) {
	needSandboxControl(t, "hostile answers of the Compute API, now and then")
	cli := cliWorkspaceWith(t, shortRetries, accSandbox.ProviderConfig(), subBlocksRead)
	accFaults(t, sandbox.Faults{Compute: sandbox.APIFaults{RateCutJSON: 0.15, RateProxyPage: 0.15, RateEmpty200: 0.15, RateWrongShape: 0.15, MaxBurst: 2}})
	if out, err := cli.run("plan", "-input=false", "-no-color"); err != nil {
		t.Fatalf("plan failed against a Compute API whose malformed answers a retry cures: %v\n%s", err, out)
	}
}

// A create answered with a proxy's page is not sent again (it is not a
// safe read), and fails naming the answer and the operation it expected,
// for the Compute API (a workload policy) and the GKE API (a node pool).
func TestAccHostileAnswers_changeIsNotRetried(t *testing.T) {
	needSandboxControl(t, "hostile answers of the Compute and GKE APIs, and the request counts")
	policy := "\nresource \"gke_workload_policy\" \"p\" {\n  name = \"" + accName("acc-hostile-wp") + "\"\n}\n"
	pool := policy + `
resource "gke_subblock_node_pool" "np" {
  name                  = "` + accName("acc-hostile-np") + `"
  zone                  = "us-central1-a"
  workload_policy       = gke_workload_policy.p.self_link
  reservation           = "tpu7x-reservation"
  reservation_block     = "block-a"
  reservation_sub_block = "sub-block-a2"
}
`
	for _, tc := range []struct {
		name, config, api, setting, post string
		faults                           sandbox.Faults
	}{
		{"compute", policy, "Compute", "compute_endpoint", "compute POST resourcePolicies", sandbox.Faults{Compute: sandbox.APIFaults{RateProxyPage: 1}}},
		{"gke", pool, "GKE", "container_endpoint", "container POST nodePools", sandbox.Faults{Container: sandbox.APIFaults{RateProxyPage: 1}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cli := cliWorkspaceWith(t, shortRetries, accSandbox.ProviderConfig(), tc.config)
			if tc.api == "GKE" {
				// The pool's reads of the GKE API are hostile too: create
				// the policy first, and make the pool's create the first
				// request of the GKE API the apply sends.
				if out, err := cli.run("apply", "-input=false", "-no-color", "-auto-approve", "-target=gke_workload_policy.p"); err != nil {
					t.Fatalf("apply of the policy: %v\n%s", err, out)
				}
			}
			accFaults(t, tc.faults)
			before := accSandbox.RequestCounts()
			out, err := cli.run("apply", "-input=false", "-no-color", "-auto-approve")
			if err == nil {
				t.Fatalf("apply succeeded against a %s API that answers only a proxy's page:\n%s", tc.api, out)
			}
			flat := strings.Join(strings.Fields(out), " ")
			if n := accSandbox.RequestCounts()[tc.post] - before[tc.post]; n > 1 {
				t.Errorf("%s: %d requests, want the create sent once at most", tc.post, n)
			}
			for _, want := range []string{"malformed answer from the " + tc.api + " API", "HTTP 502 Bad Gateway", `content type "text/html"`,
				"expected a " + tc.api, "check " + tc.setting} {
				if !strings.Contains(flat, want) {
					t.Errorf("apply output lacks %q:\n%s", want, out)
				}
			}
		})
	}
}
