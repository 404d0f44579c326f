package layout

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/idemcheck/idemcheck/catalog"
	"github.com/idemcheck/idemcheck/sqlparse/scan"
)

// MaxFileSize is the largest SQL file idemcheck reads. Migration files and
// schema-only dumps are far smaller; the limit keeps a stray data dump, a
// device or an endless stream from exhausting memory in CI.
const MaxFileSize = 64 << 20

// binaryProbe is how many leading bytes are searched for a NUL byte, which
// PostgreSQL never accepts in SQL text (the heuristic git and grep use).
const binaryProbe = 8000

// readSQLFile reads a file that is to be split as SQL. It refuses what is
// not a regular file (a FIFO would block forever, a device may never end),
// files over MaxFileSize and binary files, with errors that name the path.
func readSQLFile(path string) ([]byte, error) {
	// Stat before Open: opening a FIFO blocks until a writer comes.
	info, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("not a regular file (%s); name a .sql file or a migration directory", fileKind(info.Mode()))
	}
	if info.Size() > MaxFileSize {
		return nil, errTooLarge
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// Sized to the file, so that a large one is not copied as it grows.
	return readSQLInto(bytes.NewBuffer(make([]byte, 0, info.Size()+bytes.MinRead+1)), f)
}

// readSQL reads at most MaxFileSize bytes of SQL from r (a file or stdin).
func readSQL(r io.Reader) ([]byte, error) { return readSQLInto(&bytes.Buffer{}, r) }

// errTooLarge is a file above MaxFileSize.
var errTooLarge = fmt.Errorf("larger than %d MiB, the limit for one SQL file; lint schema-only dumps (pg_dump --schema-only), not data", MaxFileSize>>20)

func readSQLInto(buf *bytes.Buffer, r io.Reader) ([]byte, error) {
	if _, err := buf.ReadFrom(io.LimitReader(r, MaxFileSize+1)); err != nil {
		return nil, err
	}
	data := buf.Bytes()
	if len(data) > MaxFileSize {
		return nil, errTooLarge
	}
	if err := binaryError(data); err != nil {
		return nil, err
	}
	return data, nil
}

// binaryError reports UTF-16 text, or a NUL byte near the start of data
// with its position.
func binaryError(data []byte) error {
	probe := data[:min(len(data), binaryProbe)]
	if enc := utf16Encoding(probe); enc != "" {
		return &encodingError{Encoding: enc}
	}
	i := bytes.IndexByte(probe, 0)
	if i < 0 {
		return nil
	}
	p := scan.NewStatement("", string(probe), i).Pos
	return &binaryFileError{Line: p.Line, Col: p.Col}
}

// binaryFileError says where the first NUL byte is, so that the diagnostic
// can carry the position.
type binaryFileError struct{ Line, Col int }

func (e *binaryFileError) Error() string {
	return fmt.Sprintf("binary file (NUL byte at line %d, column %d), not SQL", e.Line, e.Col)
}

// utf16Encoding names UTF-16 text by its byte order mark, or, without one,
// by the NUL in every other byte that ASCII text in UTF-16 has; "" for
// anything else.
func utf16Encoding(probe []byte) string {
	switch {
	case bytes.HasPrefix(probe, []byte{0xff, 0xfe}):
		return "UTF-16 (little-endian, with a byte order mark)"
	case bytes.HasPrefix(probe, []byte{0xfe, 0xff}):
		return "UTF-16 (big-endian, with a byte order mark)"
	}
	n := len(probe) &^ 1
	if n < 4 {
		return ""
	}
	var evenNUL, oddNUL int
	for i := 0; i < n; i += 2 {
		if probe[i] == 0 {
			evenNUL++
		}
		if probe[i+1] == 0 {
			oddNUL++
		}
	}
	half := n / 2
	switch {
	case oddNUL*10 >= half*9 && evenNUL*10 < half:
		return "UTF-16 (little-endian)"
	case evenNUL*10 >= half*9 && oddNUL*10 < half:
		return "UTF-16 (big-endian)"
	}
	return ""
}

// encodingError is a file in an encoding PostgreSQL does not read SQL in.
type encodingError struct{ Encoding string }

func (e *encodingError) Error() string {
	return fmt.Sprintf("%s text, not UTF-8: convert it to UTF-8 (PostgreSQL reads SQL in the client encoding, never UTF-16)", e.Encoding)
}

// utf8BOM is the byte order mark some editors put at the start of UTF-8.
const utf8BOM = "\xef\xbb\xbf"

// bomError is a file starting with a UTF-8 byte order mark in a layout
// whose tool passes it on to PostgreSQL, which rejects it.
type bomError struct{ Tool string }

func (e *bomError) Error() string {
	return fmt.Sprintf("starts with a UTF-8 byte order mark (EF BB BF), which %s sends to PostgreSQL as it is, and PostgreSQL rejects it "+
		"(syntax error at the first word); save the file as UTF-8 without a BOM", e.Tool)
}

// readDiagnostic turns a failed read of display into an Error diagnostic,
// with the position when the error has one.
func readDiagnostic(display string, err error) scan.Diagnostic {
	var be *binaryFileError
	if errors.As(err, &be) {
		return scan.Diagnostic{Level: scan.Error, Pos: catalog.Pos{File: display, Line: be.Line, Col: be.Col}, Message: "binary file (NUL byte), not SQL"}
	}
	var ee *encodingError
	if errors.As(err, &ee) {
		return scan.Diagnostic{Level: scan.Error, Pos: catalog.Pos{File: display, Line: 1, Col: 1}, Message: ee.Error()}
	}
	return pathError(display, err)
}

// fileKind names a non-regular file mode for an error message.
func fileKind(m os.FileMode) string {
	switch {
	case m&os.ModeNamedPipe != 0:
		return "a named pipe"
	case m&os.ModeSocket != 0:
		return "a socket"
	case m&os.ModeDevice != 0:
		return "a device"
	case m.IsDir():
		return "a directory"
	}
	return "mode " + m.String()
}

// errEmpty is the error for a file named on the command line that holds no
// SQL at all, which is almost always a mistake (a wrong path or a migration
// that was never written).
var errEmpty = errors.New("empty file: no SQL statements to check")
