# A generated source tree, the same on every awk (no rand(): a Park-Miller generator in
# exact integer arithmetic): `files` files of about `size` bytes each in 40 folders, lines
# of identifiers and numbers as source code has.
#   awk -v mode=git -v files=N -v size=BYTES -v commits=C -f tree.awk | git fast-import
#       a git fast-import stream: the first commit adds every file, each of the
#       `commits` - 1 later ones rewrites a tenth of them
#   awk -v mode=build -v files=N -v size=BYTES -f tree.awk     (in an empty folder)
#       the files as src/dNN/fNNNNN.c, include/common.h and a Makefile that "compiles"
#       each into obj/ (the header and the file, gzipped, fsynced), archives each folder's
#       objects into lib/ and links them into bin/app, each output fsynced
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
function git_stream(    c, f, msg) {
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
function write_file(path, text) {
    printf "%s", text > path
    close(path)
}
function build_tree(    d, f, path, folders, objects, libs) {
    folders = files < 40 ? files : 40
    for (d = 0; d < folders; d++)
        system(sprintf("mkdir -p src/d%02d", d))
    system("mkdir -p include")
    write_file("include/common.h", source_file("common", size))
    for (f = 0; f < files; f++) {
        path = sprintf("d%02d/f%05d", f % 40, f)
        write_file("src/" path ".c", "#include \"common.h\"\n" source_file(f ".1", size))
        objects[f % 40] = objects[f % 40] " obj/" path ".o"
    }
    for (d = 0; d < folders; d++)
        libs = libs sprintf(" lib/d%02d.a", d)
    printf "all: bin/app\nbin/app:%s\n", libs > "Makefile"
    printf "\t@mkdir -p bin && cat $^ > $@ && sync $@\n" > "Makefile"
    for (d = 0; d < folders; d++) {
        printf "lib/d%02d.a:%s\n", d, objects[d] > "Makefile"
        printf "\t@mkdir -p lib && cat $^ > $@ && sync $@\n" > "Makefile"
    }
    printf "obj/%%.o: src/%%.c include/common.h\n" > "Makefile"
    printf "\t@mkdir -p $(@D) && cat include/common.h $< | gzip -1 > $@ && sync $@\n" > "Makefile"
    close("Makefile")
}
BEGIN {
    nwords = split("buffer queue request volume extent block inode sector offset length " \
        "count index cursor page cache flush commit journal replica placement object pool " \
        "device stripe chunk handle lock state error status result value entry table", words)
    seed = 42
    if (mode == "git")
        git_stream()
    else if (mode == "build")
        build_tree()
    else {
        print "tree.awk: mode is git or build" > "/dev/stderr"
        exit 2
    }
}
