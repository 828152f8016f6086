package sandbox

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"testing"

	"github.com/dynslice/terraform-provider-gke/internal/sandbox/cloud"
	"github.com/dynslice/terraform-provider-gke/internal/wellknown"
)

func control(t *testing.T, method, path, token string, body any) (int, []byte) {
	t.Helper()
	var r io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		r = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, testSandbox.GoogleURL+path, r)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	out, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, out
}

// The control endpoint changes faults, host health and nodes at run time,
// and needs the sandbox token.
func TestControlEndpoint(t *testing.T) {
	needSandbox(t)
	if code, _ := control(t, http.MethodGet, "sandbox/faults", "wrong", nil); code != http.StatusUnauthorized {
		t.Errorf("without the token: HTTP %d, want 401", code)
	}

	prev := testSandbox.Faults()
	t.Cleanup(func() { testSandbox.SetFaults(prev) })
	code, body := control(t, http.MethodPut, "sandbox/faults", testSandbox.Token,
		map[string]any{"compute": map[string]any{"rate503": 0.5}, "operationDelayMs": 1500, "failOperations": map[string]int{"insert": 2}})
	if code != http.StatusOK {
		t.Fatalf("PUT faults: HTTP %d %s", code, body)
	}
	if f := testSandbox.Faults(); f.Compute.Rate503 != 0.5 || f.OperationDelayMs != 1500 || f.FailOperations["insert"] != 2 {
		t.Errorf("faults after PUT: %+v", f)
	}
	if code, body := control(t, http.MethodPut, "sandbox/faults", testSandbox.Token, map[string]any{"nonsense": 1}); code != http.StatusBadRequest {
		t.Errorf("unknown fault field: HTTP %d %s, want 400", code, body)
	}
	testSandbox.SetFaults(prev)

	svc := newGKEService(t)
	if err := createPool(t, svc, poolSpec("np-control", reservationPath("tpu7x-reservation", "block-a", "sub-block-a4"), 16)); err != nil {
		t.Fatal(err)
	}
	code, body = control(t, http.MethodPost, "sandbox/hosts", testSandbox.Token,
		map[string]any{"reservation": "tpu7x-reservation", "block": "block-a", "subBlock": "sub-block-a4", "host": 2, "health": "DEGRADED"})
	if code != http.StatusOK {
		t.Fatalf("POST hosts: HTTP %d %s", code, body)
	}
	t.Cleanup(func() {
		_ = testSandbox.SetHostHealth(testContext(t), "tpu7x-reservation", "block-a", "sub-block-a4", 2, HostHealthy)
	})
	nodes := waitPartitionState(t, "np-control", 16, wellknown.PartitionDegraded)
	if code, body := control(t, http.MethodPost, "sandbox/hosts", testSandbox.Token,
		map[string]any{"reservation": "tpu7x-reservation", "block": "block-a", "subBlock": "nope", "host": 2, "health": "DEGRADED"}); code != http.StatusBadRequest {
		t.Errorf("unknown sub-block: HTTP %d %s", code, body)
	}

	var host int
	for _, n := range nodes {
		if n.Annotations[cloud.AnnotationHostIndex] == "9" {
			code, body = control(t, http.MethodPost, "sandbox/nodes/"+n.Name+"/vanish", testSandbox.Token, nil)
			host = 9
		}
	}
	if code != http.StatusOK || host != 9 {
		t.Fatalf("vanish: HTTP %d %s", code, body)
	}
	t.Cleanup(func() {
		_ = testSandbox.SetHostHealth(testContext(t), "tpu7x-reservation", "block-a", "sub-block-a4", 9, HostHealthy)
	})
	waitPartitionState(t, "np-control", 15, wellknown.PartitionIncomplete)

	if code, body := control(t, http.MethodPost, "sandbox/watches/cut", testSandbox.Token, nil); code != http.StatusOK {
		t.Errorf("cut watches: HTTP %d %s", code, body)
	}
}
