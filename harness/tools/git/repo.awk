# A git fast-import stream of a generated source tree, the same on every awk (no rand():
# a Park-Miller generator in exact integer arithmetic): `files` files of about `size`
# bytes each in 40 folders, lines of identifiers and numbers as source code has; the
# first commit adds them all, each of the `commits` - 1 later ones rewrites a tenth.
# Usage: awk -v files=N -v size=BYTES -v commits=C -f repo.awk | git fast-import
function next_value() { seed = (seed * 16807) % 2147483647; return seed }
function word() { return words[next_value() % nwords] }
function source_file(f, n,    text, line) {
    text = "/* file " f " */\n"
    while (length(text) < n) {
        line = "static int " word() "_" (next_value() % 1000) "(int " word() ") { return " \
            word() " * " (next_value() % 97) " + " (next_value() % 65536) "; }\n"
        text = text line
    }
    return text
}
function emit(path, text) {
    printf "M 100644 inline %s\ndata %d\n%s\n", path, length(text), text
}
BEGIN {
    nwords = split("buffer queue request volume extent block inode sector offset length " \
        "count index cursor page cache flush commit journal replica placement object pool " \
        "device stripe chunk handle lock state error status result value entry table", words)
    seed = 42
    for (c = 1; c <= commits; c++) {
        printf "commit refs/heads/main\n"
        printf "committer volperf <volperf@localhost> %d +0000\n", 1700000000 + c * 3600
        msg = "volperf generated commit " c
        printf "data %d\n%s\n", length(msg), msg
        for (f = 0; f < files; f++)
            if (c == 1 || (f + c) % 10 == 0)
                emit(sprintf("src/d%02d/f%05d.c", f % 40, f), source_file(f "." c, size))
        printf "\n"
    }
}
