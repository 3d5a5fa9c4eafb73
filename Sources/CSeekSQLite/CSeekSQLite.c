// The wrapper lives in include/CSeekSQLite.h; a C target needs one source file.
#include "CSeekSQLite.h"
