#include "policy/interference_placement.h"
