package sandbox

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	admissionv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/yaml"
)

// The slice check's end-to-end tests (slicecheck_e2e_test.go) can run
// against the open-source controller in place of the sandbox's emulation,
// to see where the two still differ: build the controller from a fetched
// snapshot of the xpk repository (branch slice-main, folder slice/: `go
// build -o bin/manager ./cmd`) and name that folder in GKE_SLICE_CONTROLLER:
//
//	GKE_SLICE_CONTROLLER=/path/to/xpk/slice TF_ACC=1 go test ./internal/sandbox/ -run TestSliceCheck
//
// TestMain then starts the test sandbox with SliceCheckExternal and that
// controller against it, as docs/guides/sandbox.md does by hand. Nothing of
// the controller is part of this repository, and CI never sets the
// variable: it is a check run by hand.
const envOutsideCheck = "GKE_SLICE_CONTROLLER"

// What the open-source controller's webhook needs in the cluster: its
// namespace, Service, certificate Secret and webhook configuration (the
// names its certificate rotator looks for), and its webhook port.
const (
	outsideNamespace   = "slice-controller-system"
	outsideService     = "slice-controller-webhook-service"
	outsideSecret      = "slice-controller-webhook-server-cert"
	outsideWebhooks    = "slice-controller-mutating-webhook-configuration"
	outsideWebhookPort = 9443
	outsideCertDir     = "/tmp/k8s-webhook-server/serving-certs"
)

// sliceWebhookConfiguration is the name of the MutatingWebhookConfiguration
// of whoever runs the slice check in the test sandbox.
func sliceWebhookConfiguration() string {
	if os.Getenv(envOutsideCheck) != "" {
		return outsideWebhooks
	}
	return "gke-slice-admission-check"
}

// startOutsideCheck runs the open-source slice controller built in dir
// against sb: the webhook's Service is an ExternalName of localhost (the
// API server calls it at the webhook port and checks the certificate for
// the Service's name), and the certificate its rotator writes into the
// Secret is copied where the controller reads it (a cluster would mount the
// Secret there). It returns once the certificate is in place; stop ends the
// controller. Its log is slice-controller.log in the sandbox's folder.
func startOutsideCheck(ctx context.Context, sb *Sandbox, dir string) (stop func(), err error) {
	kube, err := kubernetes.NewForConfig(sb.RESTConfig())
	if err != nil {
		return nil, err
	}
	manifest, err := os.ReadFile(filepath.Join(dir, "config", "webhook", "manifests.yaml"))
	if err != nil {
		return nil, fmt.Errorf("%s: the controller's webhook manifest: %w", envOutsideCheck, err)
	}
	var hooks admissionv1.MutatingWebhookConfiguration
	if err := yaml.Unmarshal(manifest, &hooks); err != nil {
		return nil, fmt.Errorf("%s: reading config/webhook/manifests.yaml: %w", envOutsideCheck, err)
	}
	hooks.Name = outsideWebhooks
	port := int32(outsideWebhookPort)
	for i := range hooks.Webhooks {
		svc := hooks.Webhooks[i].ClientConfig.Service
		if svc == nil {
			return nil, fmt.Errorf("%s: webhook %s has no service", envOutsideCheck, hooks.Webhooks[i].Name)
		}
		svc.Name, svc.Namespace, svc.Port = outsideService, outsideNamespace, &port
	}
	meta := metav1.ObjectMeta{Namespace: outsideNamespace}
	creates := []func() error{
		func() error {
			_, err := kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: outsideNamespace}}, metav1.CreateOptions{})
			return err
		},
		func() error {
			m := meta
			m.Name = outsideSecret
			_, err := kube.CoreV1().Secrets(outsideNamespace).Create(ctx, &corev1.Secret{ObjectMeta: m}, metav1.CreateOptions{})
			return err
		},
		func() error {
			m := meta
			m.Name = outsideService
			_, err := kube.CoreV1().Services(outsideNamespace).Create(ctx, &corev1.Service{ObjectMeta: m, Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeExternalName, ExternalName: "localhost"}}, metav1.CreateOptions{})
			return err
		},
		func() error {
			_, err := kube.AdmissionregistrationV1().MutatingWebhookConfigurations().Create(ctx, &hooks, metav1.CreateOptions{})
			return err
		},
	}
	for _, create := range creates {
		if err := create(); err != nil && !apierrors.IsAlreadyExists(err) {
			return nil, fmt.Errorf("%s: setting up the controller's webhook: %w", envOutsideCheck, err)
		}
	}

	// The controller's rotator waits for its certificate in this fixed
	// folder, where a cluster mounts the Secret: one run at a time on a
	// machine, and files of an earlier run removed first.
	certs := outsideCertDir
	if err := os.RemoveAll(certs); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(certs, 0o700); err != nil {
		return nil, err
	}
	logFile, err := os.Create(filepath.Join(sb.Dir, "slice-controller.log"))
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(filepath.Join(dir, "bin", "manager"),
		"--kubeconfig", sb.Kubeconfig, "--health-probe-bind-address=0", "--metrics-bind-address=0",
		"--activation-timeout", testActivationTimeout.String())
	tail := &outputTail{}
	cmd.Stdout = io.MultiWriter(logFile, tail)
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		_ = logFile.Close()
		return nil, fmt.Errorf("%s: starting bin/manager: %w", envOutsideCheck, err)
	}
	var exitErr error
	exited := make(chan struct{})
	go func() { exitErr = cmd.Wait(); close(exited) }()
	stop = func() {
		_ = cmd.Process.Kill()
		<-exited
		_ = logFile.Close()
		_ = os.RemoveAll(certs)
	}
	// The rotator writes the certificate into the Secret; the controller
	// waits for it in its certificate folder before it serves the webhook.
	written := false
	for {
		s, err := kube.CoreV1().Secrets(outsideNamespace).Get(ctx, outsideSecret, metav1.GetOptions{})
		if err == nil && !written && len(s.Data["tls.crt"]) > 0 && len(s.Data["tls.key"]) > 0 {
			for _, f := range []string{"tls.crt", "tls.key"} {
				if err := os.WriteFile(filepath.Join(certs, f), s.Data[f], 0o600); err != nil {
					stop()
					return nil, err
				}
			}
			written = true
		}
		if written {
			// The certificate is in place: it serves its webhook soon.
			var d net.Dialer
			if c, err := d.DialContext(ctx, "tcp", fmt.Sprintf("127.0.0.1:%d", outsideWebhookPort)); err == nil {
				_ = c.Close()
				return stop, nil
			}
		}
		select {
		case <-exited:
			stop()
			return nil, fmt.Errorf("%s: the controller exited before its certificate was written (%v); its last lines:\n%s", envOutsideCheck, exitErr, tail)
		case <-ctx.Done():
			stop()
			return nil, errors.Join(fmt.Errorf("%s: the controller's certificate rotator wrote no certificate into Secret %s/%s, or its webhook did not serve at 127.0.0.1:%d (certificate written: %v)", envOutsideCheck, outsideNamespace, outsideSecret, outsideWebhookPort, written), ctx.Err())
		case <-time.After(200 * time.Millisecond):
		}
	}
}
