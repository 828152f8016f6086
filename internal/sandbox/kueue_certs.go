package sandbox

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Kueue's webhook certificate. Kueue runs with its internal certificate
// management on, as its release does, because with it off Kueue insists on
// a metrics certificate at a fixed path (/etc/kueue/metrics/certs) that a
// sandbox cannot provide. That manager keeps its CA and serving certificate
// in a Secret, and keeps a valid one it finds there: the sandbox makes them
// beforehand, with the serving certificate valid for the webhook Service's
// name (what the manager checks) and for 127.0.0.1 (what the API server
// calls here), and writes it where Kueue's webhook server reads it, as the
// Secret's volume would in a cluster. The manager wants an RSA CA key in
// PKCS #1 form; the serving key may be ECDSA.

// Names that Kueue's release and its certificate manager use.
const (
	// KueueNamespace is the namespace Kueue runs in.
	KueueNamespace = "kueue-system"
	// kueueWebhookService is the Service of Kueue's webhooks in a cluster
	// (Configuration internalCertManagement.webhookServiceName).
	kueueWebhookService = "kueue-webhook-service"
	// kueueWebhookSecret holds the certificates (webhookSecretName).
	kueueWebhookSecret = "kueue-webhook-server-cert"
	// kueueCAName is the name Kueue gives its CA, which the certificate
	// manager checks the CA certificate against.
	kueueCAName = "kueue-ca"
)

// kueueCerts are the PEM files of Kueue's webhook certificates.
type kueueCerts struct {
	caCert, caKey, cert, key []byte
}

// newKueueCerts makes the CA and serving certificate of Kueue's webhooks.
func newKueueCerts() (*kueueCerts, error) {
	now := time.Now()
	caKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return nil, err
	}
	caTmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: kueueCAName, Organization: []string{"kueue"}},
		DNSNames:              []string{kueueCAName},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(10 * 365 * 24 * time.Hour),
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		return nil, fmt.Errorf("creating Kueue's webhook CA: %w", err)
	}
	caCert, err := x509.ParseCertificate(caDER)
	if err != nil {
		return nil, err
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(2),
		Subject:      pkix.Name{CommonName: kueueWebhookService + "." + KueueNamespace + ".svc"},
		DNSNames:     []string{kueueWebhookService + "." + KueueNamespace + ".svc"},
		IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1)},
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.Add(10 * 365 * 24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, caCert, &key.PublicKey, caKey)
	if err != nil {
		return nil, fmt.Errorf("creating Kueue's webhook serving certificate: %w", err)
	}
	keyPEM, err := ecKeyPEM(key)
	if err != nil {
		return nil, err
	}
	return &kueueCerts{
		caCert: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}),
		caKey:  pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(caKey)}),
		cert:   pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		key:    keyPEM,
	}, nil
}

// secret is the Secret Kueue's certificate manager reads, with the keys
// it uses.
func (c *kueueCerts) secret() *corev1.Secret {
	return &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: kueueWebhookSecret, Namespace: KueueNamespace},
		Data:       map[string][]byte{"ca.crt": c.caCert, "ca.key": c.caKey, "tls.crt": c.cert, "tls.key": c.key},
	}
}
