#include "policy/pair_table.h"
