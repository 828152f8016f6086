package sandbox

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
)

func (sb *Sandbox) startEtcd(ctx context.Context, bin string, log io.Writer) error {
	clientPort, err := freePort()
	if err != nil {
		return err
	}
	peerPort, err := freePort()
	if err != nil {
		return err
	}
	w, err := sb.logWriter("etcd", log)
	if err != nil {
		return err
	}
	client := fmt.Sprintf("http://127.0.0.1:%d", clientPort)
	peer := fmt.Sprintf("http://127.0.0.1:%d", peerPort)
	sb.etcd, err = startProcess("etcd", w, bin,
		"--name=sandbox",
		"--data-dir="+filepath.Join(sb.Dir, "etcd"),
		"--listen-client-urls="+client,
		"--advertise-client-urls="+client,
		"--listen-peer-urls="+peer,
		"--initial-advertise-peer-urls="+peer,
		"--initial-cluster=sandbox="+peer,
		"--log-level=warn",
	)
	if err != nil {
		return err
	}
	if err := waitFor(ctx, sb.etcd, "etcd to be healthy", func(ctx context.Context) error {
		return httpOK(ctx, http.DefaultClient, client+"/health", "", `"health":"true"`)
	}); err != nil {
		return err
	}
	sb.etcdURL = client
	return nil
}
