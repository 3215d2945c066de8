# sweep_csv.awk - read a `tunesim sweep --csv` file by column name: put before a program,
# `awk -F, "$(cat scripts/sweep_csv.awk)"'{ ... }'` (any awk; mawk has no -e), it turns every record's commas
# inside quotes (the settings column) into ';' and fills col[NAME] = field number from the
# header, which it then skips; the program sees the data rows with $col["name"] and the like.
function unquote(line,    o, i, c, q) {
    o = ""; q = 0
    for (i = 1; i <= length(line); i++) {
        c = substr(line, i, 1)
        if (c == "\"") { q = !q; continue }
        o = o ((q && c == ",") ? ";" : c)
    }
    return o
}
{ $0 = unquote($0) }
NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
