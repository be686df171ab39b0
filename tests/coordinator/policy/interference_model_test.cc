#include "policy/interference_model.h"

#include <gtest/gtest.h>
