'use strict';
module.exports = {
  MESSAGES: {
    notFound: 'Not found: %s',
    forbidden: 'User %s is not allowed to %s',
    created: 'Created %s with id %d',
  },
};
