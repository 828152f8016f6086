package sandbox

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
)

func (sb *Sandbox) startAPIServer(ctx context.Context, bin string, certs *pki, log io.Writer) error {
	port, err := freePort()
	if err != nil {
		return err
	}
	tokens := filepath.Join(sb.Dir, "tokens.csv")
	csv := sb.Token + `,sandbox-admin,sandbox-admin,"system:masters"` + "\n"
	for _, user := range componentUsers {
		csv += sb.componentTokens[user] + "," + user + "," + user + `,"system:masters"` + "\n"
	}
	if err := os.WriteFile(tokens, []byte(csv), 0o600); err != nil {
		return err
	}
	w, err := sb.logWriter("kube-apiserver", log)
	if err != nil {
		return err
	}
	sb.apiserver, err = startProcess("kube-apiserver", w, bin,
		"--etcd-servers="+sb.etcdURL,
		"--bind-address=127.0.0.1",
		"--advertise-address=127.0.0.1",
		fmt.Sprintf("--secure-port=%d", port),
		"--cert-dir="+filepath.Join(sb.Dir, "apiserver-certs"),
		"--tls-cert-file="+certs.CertFile,
		"--tls-private-key-file="+certs.KeyFile,
		"--token-auth-file="+tokens,
		"--authorization-mode=RBAC",
		// GKE's: a pod that requests an extended resource (google.com/tpu)
		// tolerates the taint of that name, which every TPU node has.
		// (The default plugins, such as ServiceAccount and
		// TaintNodesByCondition, stay on.)
		"--enable-admission-plugins=ExtendedResourceToleration",
		"--service-account-issuer=https://kubernetes.default.svc",
		"--service-account-key-file="+certs.ServiceAccountKeyFile,
		"--service-account-signing-key-file="+certs.ServiceAccountKeyFile,
		"--service-cluster-ip-range=10.0.0.0/24",
		"--enable-priority-and-fairness=false",
		// GKE Standard clusters admit privileged containers, and TPU
		// workloads use them (the dynamic slicing guide's JobSet example).
		"--allow-privileged=true",
		// etcd 3.4 (Debian's) lacks the progress notifications the watch
		// cache needs to serve a watch "from now" on a quiet resource: it
		// answers "Too large resource version". Serve watches from etcd.
		"--watch-cache=false",
		"--profiling=false",
		"--v=0",
	)
	if err != nil {
		return err
	}
	sb.apiserverURL = fmt.Sprintf("https://127.0.0.1:%d", port)
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: tlsConfig(certs.CAPEM)}}
	return waitFor(ctx, sb.apiserver, "kube-apiserver to be ready", func(ctx context.Context) error {
		return httpOK(ctx, client, sb.apiserverURL+"/readyz", sb.Token, "ok")
	})
}

func tlsConfig(caPEM []byte) *tls.Config {
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(caPEM)
	return &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
}
