// Fixture for the layers test: the messenger may not include the PG layer.
#include "osd/pg/primary.h"
