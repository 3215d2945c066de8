/* locality.c - names of the locality classes. */
#include "locality.h"

const char *ts_locality_name(ts_locality loc)
{
    static const char *const names[TS_LOC__COUNT] = {"self",         "same_numa", "same_socket",
                                                     "cross_socket", "same_leaf", "cross_spine"};
    return (loc >= 0 && loc < TS_LOC__COUNT) ? names[loc] : "?";
}
