# SPDX-License-Identifier: BSD-3-Clause
#
# roff-tidy.awk - make scdoc's roff lint-clean for mandoc -Tlint -Wwarning.
#
# scdoc 1.11 opens every block with ".P", also right after .TH/.SH/.SS and
# right before .SH (mandoc: "skipping paragraph macro"), ends an indented
# block with ".P" + ".RE" (the blank line belongs after the .RE), and may
# end the page inside an .RS block ("missing end of block").  None of this
# is meant to show on the page; left alone it would bury real warnings in
# tests/lint/test_man.sh, so the generated page is tidied here once.
function nextline(i,    j) {
    j = i + 1
    while (j <= NR && line[j] == ".P")
        j++
    return (j <= NR) ? line[j] : ""
}
{ line[NR] = $0 }
END {
    depth = 0
    prev = ".TH"
    pending = 0
    for (i = 1; i <= NR; i++) {
        l = line[i]
        nxt = nextline(i)
        if (l == ".P") {
            if (nxt ~ /^\.RE( |$)/) {
                pending = 1 # re-emitted after the .RE
                continue
            }
            if (prev ~ /^\.(TH|SH|SS|P|RS)( |$)/ || nxt ~ /^\.(SH|SS)( |$)/ || nxt == "")
                continue
        }
        if (l ~ /^\.RS( |$)/)
            depth++
        else if (l ~ /^\.RE( |$)/ && depth > 0)
            depth--
        print l
        if (l !~ /^\.\\"/)
            prev = l
        if (l ~ /^\.RE( |$)/ && pending) {
            pending = 0
            if (nxt !~ /^\.(SH|SS|RE)( |$)/ && nxt != "") {
                print ".P"
                prev = ".P"
            }
        }
    }
    while (depth-- > 0)
        print ".RE"
}
