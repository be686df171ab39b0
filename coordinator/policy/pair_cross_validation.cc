#include "policy/pair_cross_validation.h"
