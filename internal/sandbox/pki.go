package sandbox

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
	"os"
	"path/filepath"
	"time"
)

// pki is the sandbox's own certificate authority, the serving certificate
// of every sandbox endpoint (loopback only), and the service-account key.
type pki struct {
	CAFile, CertFile, KeyFile, ServiceAccountKeyFile string
	CAPEM                                            []byte
}

// newCA makes a self-signed CA certificate (DER) and its key.
func newCA(name string) ([]byte, *ecdsa.PrivateKey, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: name},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(10 * 365 * 24 * time.Hour),
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, nil, fmt.Errorf("creating the CA %s: %w", name, err)
	}
	return der, key, nil
}

func newPKI(dir string) (*pki, error) {
	caDER, caKey, err := newCA("gke-sandbox-ca")
	if err != nil {
		return nil, err
	}
	caCert, err := x509.ParseCertificate(caDER)
	if err != nil {
		return nil, err
	}
	now := time.Now()

	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(2),
		Subject:      pkix.Name{CommonName: "gke-sandbox"},
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.Add(10 * 365 * 24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		DNSNames:     []string{"localhost", "kubernetes", "kubernetes.default", "kubernetes.default.svc"},
		IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback, net.IPv4(10, 0, 0, 1)},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, caCert, &key.PublicKey, caKey)
	if err != nil {
		return nil, fmt.Errorf("creating the sandbox serving certificate: %w", err)
	}
	saKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}

	p := &pki{
		CAFile:                filepath.Join(dir, "ca.crt"),
		CertFile:              filepath.Join(dir, "serving.crt"),
		KeyFile:               filepath.Join(dir, "serving.key"),
		ServiceAccountKeyFile: filepath.Join(dir, "service-account.key"),
		CAPEM:                 pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}),
	}
	keyPEM, err := ecKeyPEM(key)
	if err != nil {
		return nil, err
	}
	saPEM, err := ecKeyPEM(saKey)
	if err != nil {
		return nil, err
	}
	for file, content := range map[string][]byte{
		p.CAFile:                p.CAPEM,
		p.CertFile:              pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		p.KeyFile:               keyPEM,
		p.ServiceAccountKeyFile: saPEM,
	} {
		if err := os.WriteFile(file, content, 0o600); err != nil {
			return nil, err
		}
	}
	return p, nil
}

func ecKeyPEM(key *ecdsa.PrivateKey) ([]byte, error) {
	der, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: der}), nil
}

// WrongCAPEM is a valid CA certificate (PEM) that did not sign the
// sandbox's serving certificate, new at each call: a client that trusts
// it instead of the sandbox CA fails to verify the sandbox's Kubernetes
// endpoint, as with a cluster_ca_certificate of another cluster.
func WrongCAPEM() ([]byte, error) {
	der, _, err := newCA("not-the-sandbox-ca")
	if err != nil {
		return nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), nil
}
