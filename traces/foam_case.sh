# foam_case.sh - shell functions shared by the scripts that prepare OpenFOAM cases for
# recording (traces/record_simplefoam.sh, bench/record_motorbike.sh). Source it; it runs
# nothing by itself. Both functions work on the case in the current directory.

# foam_decompose RANKS "NX NY NZ": write system/decomposeParDict for the "simple" method
# (Debian's scotch decomposition is a dummy).
foam_decompose() {
    cat >system/decomposeParDict <<EOF_DICT
FoamFile
{
    version     2.0;
    format      ascii;
    class       dictionary;
    object      decomposeParDict;
}

numberOfSubdomains $1;

method          simple;

simpleCoeffs
{
    n           ($2);
    delta       0.001;
}
EOF_DICT
}

# foam_short_run END_TIME: run to END_TIME without intermediate writes and without function
# objects (they would add output and, for streamlines, MPI traffic of their own).
foam_short_run() {
    sed -i -E "s/^endTime .*/endTime         $1;/; s/^writeInterval .*/writeInterval   100000;/" \
        system/controlDict
    awk 'BEGIN { skip = 0 }
         /^functions/ { skip = 1 }
         skip && /^}/ { skip = 0; next }
         !skip' system/controlDict >system/controlDict.new
    mv system/controlDict.new system/controlDict
    ! grep -q "^functions" system/controlDict
}
