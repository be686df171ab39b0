#include "policy/interference_model.h"
