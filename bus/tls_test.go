package bus_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"

	"github.com/rote-agent/rote/bus"
)

// TestTLSWithPrivateCA: against a server whose certificate a private CA
// signed, with a password, the bus connects given the CA (and creates its
// assets); without the CA it is ErrUnreachable; and a wrong password is
// ErrUnreachable with the password kept out of the message.
func TestTLSWithPrivateCA(t *testing.T) {
	dir := t.TempDir()
	caFile, cert := certificates(t, dir)
	srv, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: server.RANDOM_PORT, JetStream: true, StoreDir: filepath.Join(dir, "js"),
		NoSigs: true, NoLog: true, Username: "rote", Password: "s3cret", TLS: true, TLSConfig: &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}})
	if err != nil {
		t.Fatal(err)
	}
	go srv.Start()
	if !srv.ReadyForConnections(10 * time.Second) {
		t.Fatal("server did not start")
	}
	t.Cleanup(func() { srv.Shutdown(); srv.WaitForShutdown() })
	port := strconv.Itoa(srv.Addr().(*net.TCPAddr).Port)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	b, err := bus.Open(ctx, bus.Config{URL: "tls://rote:s3cret@localhost:" + port, CAFile: caFile, Name: "tls"})
	if err != nil {
		t.Fatalf("with the CA: %v", err)
	}
	if err := b.Health(ctx); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.ClientURL(), "s3cret") {
		t.Fatalf("the client URL shows the password: %s", b.ClientURL())
	}
	b.Close()
	if _, err := bus.Open(ctx, bus.Config{URL: "tls://rote:s3cret@localhost:" + port, Name: "tls"}); !errors.Is(err, bus.ErrUnreachable) {
		t.Fatalf("without the CA: %v", err)
	}
	_, err = bus.Open(ctx, bus.Config{URL: "tls://rote:wrong-password@localhost:" + port, CAFile: caFile, Name: "tls"})
	if !errors.Is(err, bus.ErrRefused) || strings.Contains(err.Error(), "wrong-password") {
		t.Fatalf("a wrong password: %v", err)
	}
}

// certificates writes a CA to dir/ca.crt and returns it with a server
// certificate for localhost that it signed.
func certificates(t *testing.T, dir string) (string, tls.Certificate) {
	t.Helper()
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	ca := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "rote test CA"}, NotBefore: time.Now().Add(-time.Hour),
		NotAfter: time.Now().Add(time.Hour), IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	caDER, err := x509.CreateCertificate(rand.Reader, ca, ca, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	leaf := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "localhost"}, DNSNames: []string{"localhost"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	caCert, err := x509.ParseCertificate(caDER)
	if err != nil {
		t.Fatal(err)
	}
	leafDER, err := x509.CreateCertificate(rand.Reader, leaf, caCert, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	caFile := filepath.Join(dir, "ca.crt")
	if err := os.WriteFile(caFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}), 0o600); err != nil {
		t.Fatal(err)
	}
	return caFile, tls.Certificate{Certificate: [][]byte{leafDER}, PrivateKey: key}
}
